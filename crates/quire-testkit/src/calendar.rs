//! Dates and timestamps counted from a fixed base day, so output never depends on the clock.

/// 2024-01-01 as days since 1970-01-01.
const BASE_DAY: i64 = 19_723;

/// The civil date `(year, month, day)` of a day number since 1970-01-01
/// (the proleptic-Gregorian "days to civil" conversion).
fn civil(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// `YYYY-MM-DD` of the day `offset` days after the base day.
pub(crate) fn date(offset: usize) -> String {
    let (year, month, day) = civil(BASE_DAY + offset as i64);
    format!("{year:04}-{month:02}-{day:02}")
}

/// RFC 3339 UTC timestamp, `offset` days after the base day at the given minute of the day.
pub(crate) fn timestamp(offset: usize, minute_of_day: usize) -> String {
    let minute_of_day = minute_of_day % (24 * 60);
    format!(
        "{}T{:02}:{:02}:00Z",
        date(offset),
        minute_of_day / 60,
        minute_of_day % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_count_from_2024_01_01() {
        let cases = [
            (0, "2024-01-01"),
            (30, "2024-01-31"),
            (59, "2024-02-29"),
            (60, "2024-03-01"),
            (365, "2024-12-31"),
            (366, "2025-01-01"),
        ];
        for (offset, expected) in cases {
            assert_eq!(date(offset), expected, "offset {offset}");
        }
    }

    #[test]
    fn timestamp_is_rfc3339_utc() {
        assert_eq!(timestamp(1, 9 * 60 + 5), "2024-01-02T09:05:00Z");
    }
}
