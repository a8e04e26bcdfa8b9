//! Who may browse a space (`[space] visibility`): the setting is written to the space's own
//! `.quire/config.toml` through the write pipeline (one commit), keeping the rest of the file
//! as it was.

use quire_config::Visibility;

use crate::change::WriteOptions;
use crate::error::{Error, ErrorCode, Result};
use crate::settings::CONFIG_FILE;
use crate::space::Space;

impl Space {
    /// Sets `[space] visibility` in the space's configuration file (created when missing);
    /// a file that does not parse is left alone and refused. The commit message names the
    /// new visibility unless `opts` names one.
    pub fn set_visibility(&self, visibility: Visibility, opts: &WriteOptions) -> Result<()> {
        let text = match self.files().read(CONFIG_FILE) {
            Ok(content) => String::from_utf8(content.bytes)
                .map_err(|_| Error::bad_request(format!("{CONFIG_FILE} is not UTF-8")))?,
            Err(e) if e.code == ErrorCode::NotFound => String::new(),
            Err(e) => return Err(e),
        };
        let mut doc: toml_edit::DocumentMut = text.parse().map_err(|e| {
            Error::bad_request(format!(
                "{CONFIG_FILE} does not parse, nothing changed: {e}"
            ))
        })?;
        let table = doc
            .entry("space")
            .or_insert_with(|| toml_edit::Item::Table(toml_edit::Table::new()))
            .as_table_mut()
            .ok_or_else(|| {
                Error::bad_request(format!("[space] of {CONFIG_FILE} is not a table"))
            })?;
        table["visibility"] = toml_edit::value(visibility.to_string());
        let mut opts = opts.clone();
        if opts.message.is_none() {
            opts.message = Some(format!("space visibility: {visibility}"));
        }
        self.files()
            .write_server_file(CONFIG_FILE, doc.to_string().into_bytes(), &opts)
            .map(|_| ())
    }
}
