//! `QUIRE_*` environment variables that override the config file at start-up.

use crate::{AuthType, Config, ConfigError, Secret, VersioningStrategy};

/// The variables [`Config::apply_env_overrides`] reads, in the order it applies them.
pub const ENV_OVERRIDES: &[&str] = &[
    "QUIRE_HOST",
    "QUIRE_PORT",
    "QUIRE_VERSIONING",
    "QUIRE_AUTH_TYPE",
    "QUIRE_API_KEY",
];

impl Config {
    /// Applies the `QUIRE_*` overrides from `env`, then [validates](Config::validate):
    ///
    /// | variable | sets |
    /// | - | - |
    /// | `QUIRE_HOST` | `server.host` |
    /// | `QUIRE_PORT` | `server.port` (0–65535) |
    /// | `QUIRE_VERSIONING` | `versioning.strategy` (`git`, `cow`, `none`) |
    /// | `QUIRE_AUTH_TYPE` | `auth.type` (`none`, `apikey`, `perspace`, `oidc`) |
    /// | `QUIRE_API_KEY` | `auth.api_key`; also switches `auth.type` from `none` to `apikey` unless `QUIRE_AUTH_TYPE` is set |
    ///
    /// A variable that is unset or blank changes nothing, so `QUIRE_PORT= quire serve` keeps
    /// the file's port. The `QUIRE_API_KEY` switch exists because a key given to a server
    /// that then ignores it would leave the server open while its operator thinks it is not.
    /// A value that cannot be used is an error naming the variable.
    pub fn apply_env_overrides(
        &mut self,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<(), ConfigError> {
        let read = |var: &str| env(var).filter(|value| !value.trim().is_empty());

        if let Some(host) = read("QUIRE_HOST") {
            self.server.host = host.trim().to_owned();
        }
        if let Some(port) = read("QUIRE_PORT") {
            self.server.port = port.trim().parse().map_err(|_| ConfigError::EnvOverride {
                var: "QUIRE_PORT",
                message: format!("`{port}` is not a port number (0-65535)"),
            })?;
        }
        if let Some(strategy) = read("QUIRE_VERSIONING") {
            self.versioning.strategy = strategy.parse::<VersioningStrategy>().map_err(|error| {
                ConfigError::EnvOverride {
                    var: "QUIRE_VERSIONING",
                    message: error.to_string(),
                }
            })?;
        }
        let auth_type = read("QUIRE_AUTH_TYPE");
        if let Some(kind) = &auth_type {
            self.auth.kind =
                kind.parse::<AuthType>()
                    .map_err(|error| ConfigError::EnvOverride {
                        var: "QUIRE_AUTH_TYPE",
                        message: error.to_string(),
                    })?;
        }
        if let Some(key) = read("QUIRE_API_KEY") {
            self.auth.api_key = Some(Secret::new(key.trim()));
            if auth_type.is_none() && self.auth.kind == AuthType::None {
                self.auth.kind = AuthType::Apikey;
            }
        }
        self.validate()
    }
}
