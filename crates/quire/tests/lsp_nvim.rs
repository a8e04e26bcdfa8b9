//! A real editor: Neovim, headless, with its built-in LSP client attached to `quire lsp`,
//! goes to a definition, sees a diagnostic clear when a page is moved on disk behind the
//! server's back, and renames a page and an image with the server's
//! `workspace/willRenameFiles` edits (`tests/nvim/check.lua`). Needs `nvim` (Debian package `neovim`) on the PATH: without
//! it this test FAILS, saying so, rather than skipping. `QUIRE_NVIM` names another binary.

mod support;

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use support::{quire, text};

fn nvim() -> String {
    let nvim = std::env::var("QUIRE_NVIM").unwrap_or_else(|_| "nvim".into());
    match Command::new(&nvim).arg("--version").output() {
        Ok(out) if out.status.success() => nvim,
        _ => panic!(
            "Neovim is missing: the real-editor check of `quire lsp` needs `{nvim}` \
             (Debian/Ubuntu: `apt-get install -y neovim`; or set QUIRE_NVIM to its path)"
        ),
    }
}

#[test]
fn neovim_goes_to_a_definition_sees_moves_on_disk_and_renames_a_page_and_an_image() {
    let nvim = nvim();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("kb");
    std::fs::create_dir_all(root.join("notes")).unwrap();
    std::fs::write(
        root.join("hub.md"),
        "# Hub\n\nIntro.\n\n## Next Steps\n\nDo things.\n",
    )
    .unwrap();
    std::fs::write(
        root.join("notes/a.md"),
        "# A\n\nSee [[hub#Next Steps]] and [md](../hub.md).\n\n![[img.png]] ![x](../img.png)\n",
    )
    .unwrap();
    std::fs::write(root.join("notes/later.md"), "# Later\n\n[[ideas/plan]]\n").unwrap();
    std::fs::write(root.join("plan.md"), "# Plan\n").unwrap();
    std::fs::write(root.join("img.png"), b"\x89PNG\r\n\x1a\n").unwrap();
    let out = quire()
        .args(["init", root.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let result = dir.path().join("result.txt");
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/nvim/check.lua");
    let mut child = Command::new(&nvim)
        .args(["--headless", "--clean", "-n", "-c"])
        .arg(format!("luafile {script}"))
        .env("QUIRE_BIN", env!("CARGO_BIN_EXE_quire"))
        .env("KB", root.canonicalize().unwrap())
        .env("OUT", &result)
        .env("XDG_STATE_HOME", dir.path().join("state"))
        .env("XDG_DATA_HOME", dir.path().join("data"))
        .current_dir(&root)
        .stdout(Stdio::null())
        .spawn()
        .expect("nvim starts");
    let deadline = Instant::now() + Duration::from_secs(90);
    loop {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("nvim did not finish within 90 s");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let report = std::fs::read_to_string(&result).expect("the script reports");
    assert!(report.starts_with("OK"), "{report}");
    assert!(
        report.contains("definition: ") && report.contains("/hub.md line 5"),
        "{report}"
    );
    // The rename happened on disk, and the linking page's links follow it.
    assert!(root.join("archive/hub2.md").exists());
    assert!(!root.join("hub.md").exists());
    let a = std::fs::read_to_string(root.join("notes/a.md")).unwrap();
    assert!(
        a.contains("hub2#Next Steps]]") && a.contains("[md](../archive/hub2.md)"),
        "{a}\n{report}"
    );
    // The move on disk was seen without a word from the editor.
    assert!(
        report.contains("watched: the diagnostic cleared"),
        "{report}"
    );
    // The image too: renamed, and both links to it follow.
    assert!(root.join("media/photo.png").exists() && !root.join("img.png").exists());
    assert!(
        a.contains("![[photo.png]]") && a.contains("![x](../media/photo.png)"),
        "{a}\n{report}"
    );
}
