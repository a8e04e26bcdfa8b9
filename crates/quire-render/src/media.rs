//! What an embedded file shows, by its extension: an image (with the size an embed asks
//! for, `![[img.png|300]]` or `|300x200`), a PDF in the browser's viewer, audio and video
//! players, or else a link to the file.

use crate::escape_html;

/// The kind of file an embed shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Media {
    Image,
    Pdf,
    Audio,
    Video,
    Other,
}

pub(crate) fn media_of(name: &str) -> Media {
    let ext = name
        .rsplit_once('.')
        .map(|(_, e)| e.to_ascii_lowercase())
        .unwrap_or_default();
    match ext.as_str() {
        "png" | "jpg" | "jpeg" | "gif" | "webp" | "svg" | "avif" | "bmp" => Media::Image,
        "pdf" => Media::Pdf,
        "mp3" | "wav" | "ogg" | "oga" | "m4a" | "flac" | "opus" => Media::Audio,
        "mp4" | "webm" | "ogv" | "mov" | "mkv" => Media::Video,
        _ => Media::Other,
    }
}

/// `300` or `300x200` (an embed's alias naming a size): width and height in pixels.
pub(crate) fn size_of(alias: &str) -> Option<(u32, Option<u32>)> {
    let alias = alias.trim();
    let (w, h) = match alias.split_once('x') {
        Some((w, h)) => (w, Some(h)),
        None => (alias, None),
    };
    let w: u32 = w.parse().ok()?;
    let h = match h {
        Some(h) => Some(h.parse().ok()?),
        None => None,
    };
    Some((w, h))
}

/// The HTML of an embedded file at `src` named `name`; `alias` is the embed's alias or alt
/// text (a size for images).
pub(crate) fn media_html(src: &str, name: &str, alias: &str) -> String {
    let src = escape_html(src);
    let label = if alias.is_empty() || size_of(alias).is_some() {
        name.rsplit('/').next().unwrap_or(name)
    } else {
        alias
    };
    let label = escape_html(label);
    match media_of(name) {
        Media::Image => {
            let size = match size_of(alias) {
                Some((w, Some(h))) => format!(" width=\"{w}\" height=\"{h}\""),
                Some((w, None)) => format!(" width=\"{w}\""),
                None => String::new(),
            };
            let alt = if size_of(alias).is_some() {
                String::new()
            } else {
                escape_html(alias)
            };
            format!("<img src=\"{src}\" alt=\"{alt}\"{size}>")
        }
        Media::Pdf => {
            format!("<iframe class=\"embed-pdf\" src=\"{src}\" title=\"{label}\"></iframe>")
        }
        Media::Audio => format!(
            "<audio class=\"embed-audio\" controls src=\"{src}\" title=\"{label}\"></audio>"
        ),
        Media::Video => format!(
            "<video class=\"embed-video\" controls src=\"{src}\" title=\"{label}\"></video>"
        ),
        Media::Other => format!("<a class=\"embed-file\" href=\"{src}\">{label}</a>"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_are_width_or_width_by_height() {
        assert_eq!(size_of("300"), Some((300, None)));
        assert_eq!(size_of("300x200"), Some((300, Some(200))));
        assert_eq!(size_of("a caption"), None);
        assert_eq!(size_of("300xabc"), None);
    }

    #[test]
    fn each_kind_of_file_gets_its_player() {
        assert!(media_html("/f/a.pdf", "a.pdf", "").starts_with("<iframe"));
        assert!(media_html("/f/a.mp3", "a.mp3", "").starts_with("<audio"));
        assert!(media_html("/f/a.mp4", "a.mp4", "").starts_with("<video"));
        assert!(media_html("/f/a.zip", "a.zip", "").starts_with("<a "));
        assert_eq!(
            media_html("/f/a.png", "a.png", "300"),
            "<img src=\"/f/a.png\" alt=\"\" width=\"300\">"
        );
    }
}
