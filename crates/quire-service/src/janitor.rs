//! The scheduled janitor scan (`[janitor] interval`, `startup_scan`): the janitor report of
//! `GET /janitor`, made by a thread of the space every interval (the first after one
//! interval, or at once with `startup_scan`), logged as one line of counts and kept with its
//! time in `.quire/state/janitor.json` for monitoring to read. A scan writes nothing else.

use std::sync::{Arc, Weak};
use std::time::Duration;

use quire_api::JanitorReport;
use quire_vault::PagePath;
use serde::{Deserialize, Serialize};

use crate::core::SpaceCore;
use crate::error::{Error, Result};
use crate::events::now_rfc3339;
use crate::periodic::Periodic;
use crate::settings::JanitorSchedule;

/// Where the last scheduled scan is kept.
pub const LAST_SCAN_PATH: &str = ".quire/state/janitor.json";

/// The last scheduled scan as kept on disk.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct JanitorScan {
    /// When the scan ended (RFC 3339).
    pub scanned_at: String,
    /// `[janitor] stale_days` of the scan.
    pub stale_days: u32,
    pub report: JanitorReport,
}

/// What a scan reports: the janitor report of the space at `stale_days` (the space passes
/// the insight area's report, so the schedule needs no area of its own).
pub(crate) type Report = fn(&SpaceCore, u32) -> Result<JanitorReport>;

/// The janitor thread of a space and its schedule.
pub(crate) struct Janitor {
    schedule: JanitorSchedule,
    report: Report,
    periodic: Periodic,
}

impl Janitor {
    pub(crate) fn new(schedule: JanitorSchedule, report: Report) -> Janitor {
        Janitor {
            schedule,
            report,
            periodic: Periodic::default(),
        }
    }
}

/// Starts the scheduled scans of a space (once), when its schedule has an interval and this
/// process writes the space.
pub(crate) fn start(core: &Arc<SpaceCore>, janitor: &Janitor) {
    let schedule = janitor.schedule;
    let report = janitor.report;
    if schedule.interval.is_zero() || core.writer.is_none() {
        return;
    }
    let first = if schedule.startup_scan {
        Duration::ZERO
    } else {
        schedule.interval
    };
    let weak: Weak<SpaceCore> = Arc::downgrade(core);
    janitor
        .periodic
        .start("quire-janitor", first, schedule.interval, move || {
            let Some(core) = weak.upgrade() else {
                return false;
            };
            if let Err(e) = scan(&core, report) {
                tracing::error!(space = %core.name, "the scheduled janitor scan failed: {e}");
            }
            true
        });
}

/// Stops the scheduled scans of a space.
pub(crate) fn stop(janitor: &Janitor) {
    janitor.periodic.stop();
}

/// One scheduled scan: the report, a log line, the file.
fn scan(core: &SpaceCore, report: Report) -> Result<JanitorScan> {
    let stale_days = core.find.insight.stale_days;
    let report = report(core, stale_days)?;
    tracing::info!(
        space = %core.name,
        stale = report.stale.len(),
        orphans = report.orphans.len(),
        broken_links = report.broken_links.len(),
        empty = report.empty.len(),
        missing_frontmatter = report.missing_frontmatter.len(),
        "janitor scan"
    );
    let scan = JanitorScan {
        scanned_at: now_rfc3339(),
        stale_days,
        report,
    };
    let bytes = serde_json::to_vec_pretty(&scan).map_err(Error::internal)?;
    let path = PagePath::new(LAST_SCAN_PATH).expect("constant path is valid");
    core.root.write(&path, &bytes)?;
    Ok(scan)
}

/// The last scheduled scan of a space, if one ran.
pub(crate) fn last(core: &SpaceCore) -> Result<Option<JanitorScan>> {
    let path = PagePath::new(LAST_SCAN_PATH).expect("constant path is valid");
    let bytes = match core.root.read(&path).map_err(Error::from) {
        Ok(bytes) => bytes,
        Err(e) if e.code == crate::error::ErrorCode::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    serde_json::from_slice(&bytes)
        .map(Some)
        .map_err(|e| Error::internal(format!("{LAST_SCAN_PATH}: {e}")))
}
