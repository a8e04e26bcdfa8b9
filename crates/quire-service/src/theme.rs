//! The web UI's theme, `.quire/theme.json` (committed): an accent colour and a mode. Changing
//! it is refused while the space's configuration says `[ui] theme_locked = true`, read from
//! `.quire/config.toml` at each change (so unlocking needs no restart); a configuration that
//! does not load refuses the change too (fail closed).

use quire_api::Theme;
use quire_store::StoreError;
use quire_vault::PagePath;

use crate::change::WriteOptions;
use crate::change::{Change, FileOp};
use crate::core::SpaceCore;
use crate::error::{Error, ErrorCode, Result};

/// Where the theme lives.
pub const THEME_PATH: &str = ".quire/theme.json";

/// The theme of a space that never set one.
pub fn default_theme() -> Theme {
    Theme {
        primary: "#4f46e5".into(),
        mode: "system".into(),
    }
}

/// The theme of one space.
#[derive(Clone, Copy)]
pub struct Themes<'a>(pub(crate) &'a SpaceCore);

impl Themes<'_> {
    /// The stored theme, or the default when none (or an unreadable one) is stored.
    pub fn read(&self) -> Result<Theme> {
        let path = PagePath::new(THEME_PATH).expect("constant path is valid");
        match self.0.root.read(&path) {
            Ok(bytes) => Ok(serde_json::from_slice::<Theme>(&bytes)
                .ok()
                .filter(|t| validate(t).is_ok())
                .unwrap_or_else(|| {
                    tracing::warn!("{THEME_PATH} is not a valid theme; the default is used");
                    default_theme()
                })),
            Err(StoreError::NotFound { .. }) => Ok(default_theme()),
            Err(e) => Err(e.into()),
        }
    }

    /// Stores a theme (one commit); forbidden while the theme is locked.
    pub fn write(&self, theme: &Theme, opts: &WriteOptions) -> Result<Theme> {
        let locked = quire_config::Config::load(self.0.root.dir())
            .map(|loaded| loaded.config.ui.theme_locked)
            .map_err(|e| {
                Error::new(
                    ErrorCode::Forbidden,
                    format!("the theme cannot be changed: the configuration does not load ({e})"),
                )
            })?;
        if locked {
            return Err(Error::new(
                ErrorCode::Forbidden,
                "the theme is locked ([ui] theme_locked = true)",
            ));
        }
        let theme = Theme {
            primary: theme.primary.trim().to_ascii_lowercase(),
            mode: theme.mode.trim().to_ascii_lowercase(),
        };
        validate(&theme)?;
        let mut text = serde_json::to_string_pretty(&theme).map_err(Error::internal)?;
        text.push('\n');
        self.0.apply(Change::one(
            FileOp {
                path: PagePath::new(THEME_PATH).expect("constant path is valid"),
                content: Some(text.into_bytes()),
                expect: opts.expect.clone(),
            },
            opts,
            || "Update the theme".to_string(),
        ))?;
        Ok(theme)
    }
}

fn validate(theme: &Theme) -> Result<()> {
    let hex = theme.primary.strip_prefix('#').unwrap_or("");
    if !matches!(hex.len(), 3 | 6) || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(Error::bad_request(format!(
            "primary {:?} is not a colour such as #4f46e5",
            theme.primary
        )));
    }
    if !matches!(theme.mode.as_str(), "light" | "dark" | "system") {
        return Err(Error::bad_request(format!(
            "mode {:?} is not light, dark or system",
            theme.mode
        )));
    }
    Ok(())
}
