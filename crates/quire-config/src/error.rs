//! The one error type of this crate: what went wrong, and where in which file.

use std::path::PathBuf;

/// A configuration that cannot be used. Unknown keys and unset `${VAR}`s are not errors;
/// they come back as warnings in [`crate::Loaded`].
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot read {}: {source}", path.display())]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },

    /// The text is not TOML, or a value has the wrong type or an invalid form.
    #[error("{}{}{message}", at_line(*line, *column), key.as_deref().map(|key| format!("`{key}`: ")).unwrap_or_default())]
    Parse {
        /// Dotted path of the offending key (`server.port`, `auth.api_keys[0].key`), when the
        /// error belongs to one value.
        key: Option<String>,
        /// 1-based line and column of the offending text.
        line: Option<usize>,
        column: Option<usize>,
        message: String,
    },

    /// Values that are each well-formed but do not work together.
    #[error("`{key}`: {message}")]
    Invalid { key: String, message: String },

    /// A `QUIRE_*` override that cannot be applied.
    #[error("environment variable {var}: {message}")]
    EnvOverride { var: &'static str, message: String },

    /// Any of the above, in a config file.
    #[error("{}: {source}", path.display())]
    InFile {
        path: PathBuf,
        #[source]
        source: Box<ConfigError>,
    },
}

fn at_line(line: Option<usize>, column: Option<usize>) -> String {
    match (line, column) {
        (Some(line), Some(column)) => format!("line {line}, column {column}: "),
        (Some(line), None) => format!("line {line}: "),
        _ => String::new(),
    }
}

impl ConfigError {
    /// The dotted key the error is about, looking through [`ConfigError::InFile`].
    pub fn key(&self) -> Option<&str> {
        match self {
            Self::Parse { key, .. } => key.as_deref(),
            Self::Invalid { key, .. } => Some(key),
            Self::InFile { source, .. } => source.key(),
            Self::Read { .. } | Self::EnvOverride { .. } => None,
        }
    }

    /// The 1-based line the error is about, looking through [`ConfigError::InFile`].
    pub fn line(&self) -> Option<usize> {
        match self {
            Self::Parse { line, .. } => *line,
            Self::InFile { source, .. } => source.line(),
            _ => None,
        }
    }
}
