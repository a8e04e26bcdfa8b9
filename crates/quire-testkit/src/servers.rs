//! Throwaway database servers for import tests: PostgreSQL, MariaDB (or MySQL) and Redis
//! from the system's packages, each started on a free loopback port with its files in a
//! fresh temporary folder, given a user [`USER`] with password [`PASSWORD`] and a database
//! [`DATABASE`], seeded through the server's own command-line client, and stopped (its
//! folder removed) when dropped.
//!
//! A missing server binary makes [`DbServer::start`] answer `None` after printing why, so a
//! test can skip — unless `QUIRE_REQUIRE_DB_SERVERS` is set (CI sets it), then it panics.
//! PostgreSQL refuses to run as root: as root, its commands run as `nobody` via `runuser`.
//!
//! [`Db::Pgvector`] is a PostgreSQL with the `vector` extension for the pgvector store's
//! tests: Debian's PostgreSQL has none, so it runs the binaries of PyPI's `pgserver` wheel
//! (PostgreSQL 16 with pgvector; `python3 -m pip install pgserver`), found through
//! `python3`, copied once under the temporary folder when running as root (`nobody` cannot
//! read root's Python). Without the wheel it skips, unless `QUIRE_REQUIRE_PGVECTOR` is set.

use std::io::Write;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The user every server is given.
pub const USER: &str = "quire";
/// Its password: distinctive, so a test can grep for it anywhere it must not be.
pub const PASSWORD: &str = "Pw4quireTestOnly9x";
/// The database every server is given (Redis: database 0).
pub const DATABASE: &str = "shop";

/// Which server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Db {
    Postgres,
    /// PostgreSQL with the `vector` extension (the `pgserver` wheel's binaries).
    Pgvector,
    Mariadb,
    Redis,
}

/// A running server; stopped when dropped.
pub struct DbServer {
    db: Db,
    port: u16,
    dir: PathBuf,
    /// The server process (MariaDB, Redis); PostgreSQL runs under `pg_ctl`.
    child: Option<Child>,
    /// PostgreSQL's binaries.
    pg_bin: Option<PathBuf>,
    /// As root, PostgreSQL's commands run as this user.
    pg_user: Option<String>,
}

impl DbServer {
    /// Starts `db`, or `None` (with a message) when its binaries are missing and
    /// `QUIRE_REQUIRE_DB_SERVERS` is not set.
    pub fn start(db: Db) -> Option<DbServer> {
        let started = match db {
            Db::Postgres => start_postgres(),
            Db::Pgvector => start_pgvector(),
            Db::Mariadb => start_mariadb(),
            Db::Redis => start_redis(),
        };
        match started {
            Ok(server) => Some(server),
            Err(Missing(what)) => {
                let require = match db {
                    Db::Pgvector => "QUIRE_REQUIRE_PGVECTOR",
                    _ => "QUIRE_REQUIRE_DB_SERVERS",
                };
                if std::env::var_os(require).is_some_and(|v| v != "0") {
                    panic!("{require} is set but {what} is not installed");
                }
                eprintln!("skipped: {what} is not installed (set {require}=1 to fail instead)");
                None
            }
        }
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// The DSN of [`USER`] on [`DATABASE`], password included.
    pub fn dsn(&self) -> String {
        self.dsn_with(PASSWORD)
    }

    /// The DSN with another password (a wrong one, to be refused).
    pub fn dsn_with(&self, password: &str) -> String {
        let port = self.port;
        match self.db {
            Db::Postgres | Db::Pgvector => {
                format!("postgres://{USER}:{password}@127.0.0.1:{port}/{DATABASE}?sslmode=disable")
            }
            Db::Mariadb => format!("mysql://{USER}:{password}@127.0.0.1:{port}/{DATABASE}"),
            Db::Redis => format!("redis://:{password}@127.0.0.1:{port}/0"),
        }
    }

    /// Runs `script` through the server's client as its administrator: SQL for PostgreSQL
    /// and MariaDB (on [`DATABASE`]), one command a line for Redis. Panics when it fails.
    pub fn run(&self, script: &str) {
        let mut command = match self.db {
            Db::Postgres | Db::Pgvector => {
                let mut c = self.pg_command("psql");
                c.args(["-v", "ON_ERROR_STOP=1", "-q", "-X", "-d"])
                    .arg(format!(
                        "postgresql://{USER}:{PASSWORD}@127.0.0.1:{}/{DATABASE}",
                        self.port
                    ))
                    .args(["-f", "-"]);
                c
            }
            Db::Mariadb => {
                let mut c = Command::new(find(&["mariadb", "mysql"]).expect("the mariadb client"));
                c.arg("--no-defaults")
                    .arg(format!(
                        "--socket={}",
                        self.dir.join("mysqld.sock").display()
                    ))
                    .args(["--protocol=socket", "-uroot", DATABASE]);
                c
            }
            Db::Redis => {
                let mut c = Command::new(find(&["redis-cli"]).expect("redis-cli"));
                c.args(["-h", "127.0.0.1", "-p", &self.port.to_string()])
                    .args(["-a", PASSWORD, "--no-auth-warning"]);
                c
            }
        };
        let out = feed(&mut command, script);
        assert!(
            out.status.success()
                && !(self.db == Db::Redis && String::from_utf8_lossy(&out.stdout).contains("ERR")),
            "{:?} failed on the seed script: {}{}",
            self.db,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }

    fn pg_command(&self, program: &str) -> Command {
        let path = self
            .pg_bin
            .as_ref()
            .expect("postgres binaries")
            .join(program);
        pg_command(&path, self.pg_user.as_deref())
    }
}

impl Drop for DbServer {
    fn drop(&mut self) {
        if matches!(self.db, Db::Postgres | Db::Pgvector) {
            let _ = self
                .pg_command("pg_ctl")
                .arg("-D")
                .arg(self.dir.join("data"))
                .args(["-m", "immediate", "-w", "stop"])
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status();
        }
        if let Some(child) = self.child.as_mut() {
            let _ = child.kill();
            let _ = child.wait();
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// A server binary that is not installed.
struct Missing(String);

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free loopback port")
        .port()
}

fn temp_dir(name: &str) -> PathBuf {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    let dir = std::env::temp_dir().join(format!("quire-{name}-{}-{nanos}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary folder");
    dir
}

/// The first of `names` on `PATH` or in the system's binary folders.
fn find(names: &[&str]) -> Option<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).collect())
        .unwrap_or_default();
    dirs.extend(["/usr/sbin", "/usr/bin", "/sbin", "/usr/local/bin"].map(PathBuf::from));
    names
        .iter()
        .flat_map(|n| dirs.iter().map(move |d| d.join(n)))
        .find(|p| p.is_file())
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
}

fn feed(command: &mut Command, input: &str) -> std::process::Output {
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the client starts");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(input.as_bytes())
        .expect("the script is sent");
    child.wait_with_output().expect("the client ends")
}

fn wait_until(what: &str, log: &Path, mut ready: impl FnMut() -> bool) {
    let start = Instant::now();
    while !ready() {
        if start.elapsed() > Duration::from_secs(60) {
            panic!(
                "{what} did not start in 60 s: {}",
                std::fs::read_to_string(log).unwrap_or_default()
            );
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn pg_command(program: &Path, user: Option<&str>) -> Command {
    match user {
        Some(user) => {
            let mut c = Command::new("runuser");
            c.args(["-u", user, "--"]).arg(program);
            c
        }
        None => Command::new(program),
    }
}

fn start_postgres() -> Result<DbServer, Missing> {
    let mut versions: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .map(|d| {
            d.filter_map(|e| e.ok().map(|e| e.path().join("bin")))
                .collect()
        })
        .unwrap_or_default();
    versions.retain(|b| b.join("initdb").is_file() && b.join("pg_ctl").is_file());
    versions.sort_by_key(|b| {
        b.parent()
            .and_then(|v| v.file_name())
            .and_then(|v| v.to_str())
            .and_then(|v| v.parse::<u32>().ok())
            .unwrap_or(0)
    });
    let bin = match versions.pop() {
        Some(bin) => bin,
        None => {
            let initdb = find(&["initdb"]).ok_or(Missing("PostgreSQL (initdb)".into()))?;
            initdb.parent().unwrap_or(Path::new("/")).to_path_buf()
        }
    };
    Ok(postgres_at(Db::Postgres, bin))
}

/// The `pgserver` wheel's PostgreSQL, which carries pgvector.
fn start_pgvector() -> Result<DbServer, Missing> {
    let missing = || Missing("PostgreSQL with pgvector (python3 -m pip install pgserver)".into());
    let found = Command::new("python3")
        .args([
            "-c",
            "import importlib.util, os; \
             print(os.path.dirname(importlib.util.find_spec('pgserver').origin))",
        ])
        .stderr(Stdio::null())
        .output()
        .map_err(|_| missing())?;
    let package = PathBuf::from(String::from_utf8_lossy(&found.stdout).trim());
    let install = package.join("pginstall");
    let has_vector = install.join("lib/postgresql/vector.so").is_file();
    if !found.status.success() || !install.join("bin/initdb").is_file() || !has_vector {
        return Err(missing());
    }
    let install = if is_root() {
        readable_copy(&package).join("pginstall")
    } else {
        install
    };
    Ok(postgres_at(Db::Pgvector, install.join("bin")))
}

/// A copy of the wheel's `package` folder, with the libraries beside it that its binaries
/// load (`pgserver.libs`, found at `$ORIGIN/../../../pgserver.libs`), that `nobody` can read;
/// made once per machine (keyed by the server binary's size and time) under the temporary
/// folder. Answers the copy of `package`.
fn readable_copy(package: &Path) -> PathBuf {
    let stamp = std::fs::metadata(package.join("pginstall/bin/postgres"))
        .ok()
        .map(|m| {
            let time = m
                .modified()
                .ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .map_or(0, |d| d.as_secs());
            format!("{}-{time}", m.len())
        })
        .unwrap_or_default();
    let copy = std::env::temp_dir().join(format!("quire-pgserver-{stamp}"));
    let name = package.file_name().expect("a package folder");
    if copy.join(name).join("pginstall/bin/postgres").is_file() {
        return copy.join(name);
    }
    let partial = std::env::temp_dir().join(format!(
        "quire-pgserver-{stamp}.{}.partial",
        std::process::id()
    ));
    std::fs::create_dir_all(&partial).expect("a temporary folder");
    let mut sources = vec![package.to_path_buf()];
    let libs = package.with_file_name(format!("{}.libs", name.to_string_lossy()));
    if libs.is_dir() {
        sources.push(libs);
    }
    for source in &sources {
        let copied = Command::new("cp")
            .arg("-a")
            .arg(source)
            .arg(&partial)
            .status();
        assert!(
            copied.is_ok_and(|s| s.success()),
            "copying {} to {}",
            source.display(),
            partial.display()
        );
    }
    let _ = Command::new("chmod")
        .args(["-R", "a+rX"])
        .arg(&partial)
        .status();
    // Another test may have finished its copy first: either is fine.
    if std::fs::rename(&partial, &copy).is_err() {
        let _ = std::fs::remove_dir_all(&partial);
    }
    copy.join(name)
}

/// Starts the PostgreSQL whose binaries are in `bin`.
fn postgres_at(db: Db, bin: PathBuf) -> DbServer {
    let user = is_root().then(|| "nobody".to_string());
    let dir = temp_dir("postgres");
    if user.is_some() {
        let status = Command::new("chown")
            .args(["-R", "nobody:"])
            .arg(&dir)
            .status();
        assert!(
            status.is_ok_and(|s| s.success()),
            "chown of {}",
            dir.display()
        );
    }
    let pwfile = dir.join("pw");
    std::fs::write(&pwfile, PASSWORD).expect("the password file");
    if user.is_some() {
        let _ = Command::new("chown").arg("nobody:").arg(&pwfile).status();
    }
    let data = dir.join("data");
    let out = pg_command(&bin.join("initdb"), user.as_deref())
        .arg("-D")
        .arg(&data)
        .args([
            "-U",
            USER,
            "-A",
            "scram-sha-256",
            "-E",
            "UTF8",
            "--no-locale",
        ])
        .arg(format!("--pwfile={}", pwfile.display()))
        .output()
        .expect("initdb runs");
    assert!(
        out.status.success(),
        "initdb failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let _ = std::fs::remove_file(&pwfile);
    let port = free_port();
    let log = dir.join("postgres.log");
    let out = pg_command(&bin.join("pg_ctl"), user.as_deref())
        .arg("-D")
        .arg(&data)
        .arg("-l")
        .arg(&log)
        .arg("-o")
        .arg(format!(
            "-p {port} -k {} -c listen_addresses=127.0.0.1 -c fsync=off",
            dir.display()
        ))
        .args(["-w", "-t", "60", "start"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .expect("pg_ctl runs");
    let server = DbServer {
        db,
        port,
        dir,
        child: None,
        pg_bin: Some(bin),
        pg_user: user,
    };
    assert!(
        out.status.success(),
        "pg_ctl start failed: {}{}",
        String::from_utf8_lossy(&out.stderr),
        std::fs::read_to_string(&log).unwrap_or_default()
    );
    let out = server
        .pg_command("psql")
        .args(["-q", "-X", "-d"])
        .arg(format!(
            "postgresql://{USER}:{PASSWORD}@127.0.0.1:{port}/postgres"
        ))
        .args(["-c", &format!("CREATE DATABASE {DATABASE}")])
        .output()
        .expect("psql runs");
    assert!(
        out.status.success(),
        "CREATE DATABASE failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    server
}

fn start_mariadb() -> Result<DbServer, Missing> {
    let server = find(&["mariadbd", "mysqld"]).ok_or(Missing("MariaDB (mariadbd)".into()))?;
    let install = find(&["mariadb-install-db", "mysql_install_db"])
        .ok_or(Missing("MariaDB (mariadb-install-db)".into()))?;
    find(&["mariadb", "mysql"]).ok_or(Missing("the MariaDB client (mariadb)".into()))?;
    let root = is_root();
    let dir = temp_dir("mariadb");
    let data = dir.join("data");
    let mut command = Command::new(&install);
    command
        .arg("--no-defaults")
        .arg(format!("--datadir={}", data.display()))
        .args(["--auth-root-authentication-method=normal", "--skip-test-db"]);
    if root {
        command.arg("--user=root");
    }
    let out = command.output().expect("mariadb-install-db runs");
    assert!(
        out.status.success(),
        "mariadb-install-db failed: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let port = free_port();
    let socket = dir.join("mysqld.sock");
    let log = dir.join("mariadb.err");
    let mut command = Command::new(&server);
    command
        .arg("--no-defaults")
        .arg(format!("--datadir={}", data.display()))
        .arg(format!("--socket={}", socket.display()))
        .arg(format!("--port={port}"))
        .arg("--bind-address=127.0.0.1")
        .arg(format!("--pid-file={}", dir.join("mariadb.pid").display()))
        .arg(format!("--log-error={}", log.display()))
        .args(["--skip-log-bin", "--innodb-buffer-pool-size=16M"]);
    if root {
        command.arg("--user=root");
    }
    let child = command
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("mariadbd starts");
    let mut db = DbServer {
        db: Db::Mariadb,
        port,
        dir,
        child: Some(child),
        pg_bin: None,
        pg_user: None,
    };
    let client = find(&["mariadb", "mysql"]).expect("the client");
    let admin = |sql: &str| {
        let mut c = Command::new(&client);
        c.arg("--no-defaults")
            .arg(format!("--socket={}", socket.display()))
            .args(["--protocol=socket", "-uroot"]);
        feed(&mut c, sql)
    };
    wait_until("MariaDB", &log, || {
        if let Some(Ok(Some(status))) = db.child.as_mut().map(|c| c.try_wait()) {
            panic!(
                "mariadbd exited ({status}): {}",
                std::fs::read_to_string(&log).unwrap_or_default()
            );
        }
        admin("SELECT 1;").status.success()
    });
    let out = admin(&format!(
        "CREATE DATABASE {DATABASE}; \
         CREATE USER '{USER}'@'%' IDENTIFIED BY '{PASSWORD}'; \
         CREATE USER '{USER}'@'localhost' IDENTIFIED BY '{PASSWORD}'; \
         GRANT ALL ON {DATABASE}.* TO '{USER}'@'%'; \
         GRANT ALL ON {DATABASE}.* TO '{USER}'@'localhost';"
    ));
    assert!(
        out.status.success(),
        "creating the MariaDB user failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    db.port = port;
    Ok(db)
}

fn start_redis() -> Result<DbServer, Missing> {
    let server = find(&["redis-server"]).ok_or(Missing("Redis (redis-server)".into()))?;
    let cli = find(&["redis-cli"]).ok_or(Missing("Redis (redis-cli)".into()))?;
    let dir = temp_dir("redis");
    let port = free_port();
    let log = dir.join("redis.log");
    let child = Command::new(&server)
        .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
        .args(["--save", "", "--appendonly", "no", "--daemonize", "no"])
        .arg("--dir")
        .arg(&dir)
        .arg("--logfile")
        .arg(&log)
        .args(["--requirepass", PASSWORD])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("redis-server starts");
    let db = DbServer {
        db: Db::Redis,
        port,
        dir,
        child: Some(child),
        pg_bin: None,
        pg_user: None,
    };
    wait_until("Redis", &log, || {
        Command::new(&cli)
            .args(["-h", "127.0.0.1", "-p", &port.to_string()])
            .args(["-a", PASSWORD, "--no-auth-warning", "PING"])
            .output()
            .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).contains("PONG"))
    });
    Ok(db)
}
