//! Names of the settings files under `.quire/` (views, schemas, workflows): the name is the
//! file's stem, so it is kept to characters every file system and URL takes as they are.

use crate::error::{Error, Result};

/// Checks a `kind` name (`view`, `schema`, `workflow`): `[A-Za-z0-9_-]{1,64}`.
pub(crate) fn check_name(kind: &str, name: &str) -> Result<()> {
    let ok = (1..=64).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    if ok {
        Ok(())
    } else {
        Err(Error::bad_request(format!(
            "invalid {kind} name {name:?}: use 1 to 64 letters, digits, '_' or '-'"
        )))
    }
}
