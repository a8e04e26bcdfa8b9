//! What `quire serve` checks before it opens a root: a setting that asks for more safety
//! (limits, enforcement, backups) is either carried out by this build or stops the
//! start with a message naming it; a purely optional feature that is not built yet is a
//! warning. Authentication and CORS are checked by `quire_http::HttpSettings`.

use quire_config::Config;
use quire_service::Error;

/// A setting this build does not carry out.
struct Unbuilt {
    setting: &'static str,
    what: &'static str,
}

/// Settings that would make the server stricter or safer and are not carried out yet: the
/// server must not start while they are set.
fn refused(config: &Config) -> Vec<Unbuilt> {
    let mut out = Vec::new();
    let mut refuse = |on: bool, setting, what| {
        if on {
            out.push(Unbuilt { setting, what });
        }
    };
    refuse(
        config.backup.remote.is_some(),
        "backup.remote",
        "pushing backups to a remote",
    );
    out
}

/// Optional features that are not built yet: the server runs without them and says so.
fn missing(config: &Config) -> Vec<Unbuilt> {
    let mut out = Vec::new();
    let mut note = |on: bool, setting, what| {
        if on {
            out.push(Unbuilt { setting, what });
        }
    };
    note(
        config.search.vector.enabled,
        "search.vector.enabled",
        "vector search",
    );
    note(
        !config.dataview.custom_fields.is_empty(),
        "dataview.custom_fields",
        "declared DQL field kinds (values are typed from what they look like)",
    );
    note(
        config.janitor.startup_scan
            || config.janitor.interval != quire_config::JanitorConfig::default().interval,
        "janitor.interval / janitor.startup_scan",
        "a scheduled janitor scan (GET /janitor answers on request)",
    );
    note(
        config.dataview.max_auto_indexes
            != quire_config::DataviewConfig::default().max_auto_indexes,
        "dataview.max_auto_indexes",
        "automatic indexes for DQL (queries run over the in-memory catalog)",
    );
    note(config.protocols.nfs.enabled, "protocols.nfs.enabled", "NFS");
    note(config.protocols.s3.enabled, "protocols.s3.enabled", "S3");
    note(
        config.protocols.webdav.enabled,
        "protocols.webdav.enabled",
        "WebDAV",
    );
    out
}

/// Refuses a configuration this build cannot honour; returns the warnings to print.
pub fn check(config: &Config) -> Result<Vec<String>, Error> {
    let refused = refused(config);
    if !refused.is_empty() {
        let lines: Vec<String> = refused
            .iter()
            .map(|u| {
                format!(
                    "{}: {} is not available in this version of quire; remove the setting \
                     (the server does not run with less protection than its configuration asks for)",
                    u.setting, u.what
                )
            })
            .collect();
        return Err(Error::bad_request(format!(
            "refusing to start: {}",
            lines.join("; ")
        )));
    }
    Ok(missing(config)
        .iter()
        .map(|u| {
            format!(
                "{} is set, but {} is not available in this version; ignored",
                u.setting, u.what
            )
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Config {
        Config::from_toml_str(text, &|_| None).unwrap().config
    }

    #[test]
    fn defaults_start_without_warnings() {
        assert_eq!(check(&Config::default()).unwrap(), Vec::<String>::new());
    }

    #[test]
    fn every_unbuilt_safety_setting_refuses_to_start_naming_itself() {
        for (text, setting) in [(
            "[backup]\nremote = \"git@example.com:kb.git\"\n",
            "backup.remote",
        )] {
            let err = check(&parse(text)).expect_err(setting);
            assert!(err.message.contains(setting), "{}", err.message);
            assert!(err.message.starts_with("refusing to start"));
        }
    }

    #[test]
    fn schema_enforcement_and_workflow_transitions_are_built() {
        let config = parse("[schema]\nenforce = true\n[workflow]\nenforce_transitions = true\n");
        assert_eq!(check(&config).unwrap(), Vec::<String>::new());
    }

    #[test]
    fn optional_features_only_warn() {
        let warnings = check(&parse(
            "[search.vector]\nenabled = true\n[space]\nvisibility = \"unlisted\"\n",
        ))
        .unwrap();
        // `unlisted` is built: only vector search is missing.
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(warnings[0].starts_with("search.vector"));
    }

    #[test]
    fn settings_for_finding_that_are_not_acted_on_say_so() {
        let warnings = check(&parse(
            "[janitor]\nstartup_scan = true\n[dataview]\nmax_auto_indexes = 5\n\
             [dataview.computed_fields]\nage = \"now() - date\"\n",
        ))
        .unwrap();
        for setting in ["janitor.interval", "dataview.max_auto_indexes"] {
            assert!(
                warnings.iter().any(|w| w.starts_with(setting)),
                "{setting}: {warnings:?}"
            );
        }
        assert!(
            !warnings
                .iter()
                .any(|w| w.starts_with("dataview.computed_fields")),
            "computed fields are acted on: {warnings:?}"
        );
    }
}
