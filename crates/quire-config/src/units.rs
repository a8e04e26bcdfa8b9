//! Value types with a text form in the config file: Go-style durations and byte sizes.

use std::fmt;
use std::str::FromStr;

use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize, Serializer};

/// Why a duration or size text was refused; the message is shown next to the key.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct UnitError(String);

/// A span of time written in Go duration syntax: `"30m"`, `"1h30m"`, `"720h"`, `"1.5s"`,
/// `"250ms"`. Units are `ns`, `us` (or `µs`), `ms`, `s`, `m`, `h`; `"0"` alone is zero.
/// Negative durations are refused because nothing in the config can use one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Duration(std::time::Duration);

const NANOS_PER: [(&str, u128); 7] = [
    ("ns", 1),
    ("us", 1_000),
    ("µs", 1_000),
    ("ms", 1_000_000),
    ("s", 1_000_000_000),
    ("m", 60 * 1_000_000_000),
    ("h", 3_600 * 1_000_000_000),
];

impl Duration {
    pub const fn from_secs(secs: u64) -> Self {
        Self(std::time::Duration::from_secs(secs))
    }

    pub const fn from_millis(millis: u64) -> Self {
        Self(std::time::Duration::from_millis(millis))
    }

    pub const fn from_std(duration: std::time::Duration) -> Self {
        Self(duration)
    }

    pub const fn as_std(self) -> std::time::Duration {
        self.0
    }
}

impl From<Duration> for std::time::Duration {
    fn from(duration: Duration) -> Self {
        duration.0
    }
}

impl From<std::time::Duration> for Duration {
    fn from(duration: std::time::Duration) -> Self {
        Self(duration)
    }
}

impl FromStr for Duration {
    type Err = UnitError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let refuse = |why: &str| UnitError(format!("invalid duration `{text}`: {why}"));
        let trimmed = text.trim();
        if trimmed.is_empty() {
            return Err(refuse("it is empty (write e.g. \"30s\", \"5m\", \"1h\")"));
        }
        if trimmed.starts_with('-') {
            return Err(refuse("durations cannot be negative"));
        }
        let body = trimmed.strip_prefix('+').unwrap_or(trimmed);
        if body == "0" {
            return Ok(Self::default());
        }
        let mut rest = body;
        let mut total: u128 = 0;
        while !rest.is_empty() {
            let (number, after_number) = split_number(rest);
            if number.is_empty() || number == "." {
                return Err(refuse(
                    "expected a number (write e.g. \"30s\", \"5m\", \"1h\")",
                ));
            }
            let unit_len = after_number
                .find(|c: char| c.is_ascii_digit() || c == '.')
                .unwrap_or(after_number.len());
            let unit = &after_number[..unit_len];
            if unit.is_empty() {
                return Err(refuse("a unit is missing (ns, us, ms, s, m or h)"));
            }
            let Some(&(_, nanos_per_unit)) = NANOS_PER.iter().find(|(name, _)| *name == unit)
            else {
                return Err(refuse(&format!(
                    "unknown unit `{unit}` (use ns, us, ms, s, m or h)"
                )));
            };
            let part = scaled(number, nanos_per_unit).ok_or_else(|| refuse("it is too large"))?;
            total = total
                .checked_add(part)
                .ok_or_else(|| refuse("it is too large"))?;
            rest = &after_number[unit_len..];
        }
        let secs = u64::try_from(total / 1_000_000_000).map_err(|_| refuse("it is too large"))?;
        let nanos = (total % 1_000_000_000) as u32;
        Ok(Self(std::time::Duration::new(secs, nanos)))
    }
}

/// Splits off a leading decimal number (digits with at most one `.`).
fn split_number(text: &str) -> (&str, &str) {
    let mut seen_dot = false;
    let end = text
        .char_indices()
        .find(|&(_, c)| {
            if c == '.' && !seen_dot {
                seen_dot = true;
                false
            } else {
                !c.is_ascii_digit()
            }
        })
        .map_or(text.len(), |(index, _)| index);
    text.split_at(end)
}

/// `number` × `unit`, where `number` may carry a fraction; exact up to the unit's precision.
fn scaled(number: &str, unit: u128) -> Option<u128> {
    let (whole, fraction) = number.split_once('.').unwrap_or((number, ""));
    let whole: u128 = if whole.is_empty() {
        0
    } else {
        whole.parse().ok()?
    };
    let mut value = whole.checked_mul(unit)?;
    // Digits beyond 30 cannot change the result by a nanosecond; dropping them avoids overflow.
    let fraction = &fraction[..fraction.len().min(30)];
    if !fraction.is_empty() {
        let digits: u128 = fraction.parse().ok()?;
        let scale = 10u128.checked_pow(fraction.len() as u32)?;
        value = value.checked_add(digits.checked_mul(unit)? / scale)?;
    }
    Some(value)
}

impl fmt::Display for Duration {
    /// Writes the shortest Go form that parses back to the same value (`1h30m`, `500ms`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let total = self.0.as_nanos();
        if total == 0 {
            return f.write_str("0s");
        }
        let whole_secs = total / 1_000_000_000;
        let (hours, minutes, secs) = (whole_secs / 3600, whole_secs / 60 % 60, whole_secs % 60);
        let sub_nanos = total % 1_000_000_000;
        if hours > 0 {
            write!(f, "{hours}h")?;
        }
        if minutes > 0 {
            write!(f, "{minutes}m")?;
        }
        if secs > 0 {
            write!(f, "{secs}s")?;
        }
        if sub_nanos > 0 {
            if sub_nanos.is_multiple_of(1_000_000) {
                write!(f, "{}ms", sub_nanos / 1_000_000)?;
            } else {
                write!(f, "{sub_nanos}ns")?;
            }
        }
        Ok(())
    }
}

impl<'de> Deserialize<'de> for Duration {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct DurationVisitor;

        impl Visitor<'_> for DurationVisitor {
            type Value = Duration;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a duration such as \"30s\", \"5m\" or \"1h\"")
            }

            fn visit_str<E: de::Error>(self, text: &str) -> Result<Duration, E> {
                text.parse().map_err(E::custom)
            }

            fn visit_i64<E: de::Error>(self, number: i64) -> Result<Duration, E> {
                Err(E::custom(format!(
                    "a duration needs a unit: write \"{number}s\", \"{number}m\" or \"{number}h\""
                )))
            }
        }

        deserializer.deserialize_str(DurationVisitor)
    }
}

impl Serialize for Duration {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

/// A number of bytes written as `"10MB"`, `"512KB"`, `"1.5GB"`, `"4096"` or a bare integer.
/// Every unit is binary (`KB` = `KiB` = 1024 bytes) because that is what people mean when
/// they cap an upload at "10MB"; `B`, `K`, `M`, `G`, `T` and the `iB` spellings work too.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct ByteSize(u64);

const BYTES_PER: [(&str, u64); 5] = [
    ("B", 1),
    ("K", 1 << 10),
    ("M", 1 << 20),
    ("G", 1 << 30),
    ("T", 1 << 40),
];

impl ByteSize {
    pub const fn from_bytes(count: u64) -> Self {
        Self(count)
    }

    pub const fn kib(count: u64) -> Self {
        Self(count << 10)
    }

    pub const fn mib(count: u64) -> Self {
        Self(count << 20)
    }

    /// The size in bytes.
    pub const fn bytes(self) -> u64 {
        self.0
    }
}

impl From<ByteSize> for u64 {
    fn from(size: ByteSize) -> Self {
        size.0
    }
}

impl FromStr for ByteSize {
    type Err = UnitError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let refuse = |why: &str| UnitError(format!("invalid size `{text}`: {why}"));
        let trimmed = text.trim();
        let (number, unit) = split_number(trimmed);
        if number.is_empty() || number == "." {
            return Err(refuse("expected a number such as \"10MB\""));
        }
        let unit = unit.trim();
        let bytes_per_unit = if unit.is_empty() {
            1
        } else {
            let upper = unit.to_ascii_uppercase();
            let prefix = upper
                .strip_suffix("IB")
                .or_else(|| upper.strip_suffix('B').filter(|p| !p.is_empty()))
                .unwrap_or(&upper);
            BYTES_PER
                .iter()
                .find(|(name, _)| *name == prefix)
                .map(|&(_, bytes)| bytes)
                .ok_or_else(|| {
                    refuse(&format!("unknown unit `{unit}` (use B, KB, MB, GB or TB)"))
                })?
        };
        let bytes = scaled(number, u128::from(bytes_per_unit))
            .and_then(|bytes| u64::try_from(bytes).ok())
            .ok_or_else(|| refuse("it is too large"))?;
        Ok(Self(bytes))
    }
}

impl fmt::Display for ByteSize {
    /// Writes the largest unit that divides the value exactly (`10MB`, `1536KB`, `7B`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (name, per) = BYTES_PER
            .iter()
            .rev()
            .find(|&&(_, per)| self.0 != 0 && self.0.is_multiple_of(per))
            .copied()
            .unwrap_or(("B", 1));
        match name {
            "B" => write!(f, "{}B", self.0),
            _ => write!(f, "{}{name}B", self.0 / per),
        }
    }
}

impl<'de> Deserialize<'de> for ByteSize {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct SizeVisitor;

        impl Visitor<'_> for SizeVisitor {
            type Value = ByteSize;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a size such as \"10MB\" or a number of bytes")
            }

            fn visit_str<E: de::Error>(self, text: &str) -> Result<ByteSize, E> {
                text.parse().map_err(E::custom)
            }

            fn visit_i64<E: de::Error>(self, number: i64) -> Result<ByteSize, E> {
                u64::try_from(number)
                    .map(ByteSize)
                    .map_err(|_| E::custom(format!("invalid size {number}: it is negative")))
            }

            fn visit_u64<E: de::Error>(self, number: u64) -> Result<ByteSize, E> {
                Ok(ByteSize(number))
            }
        }

        deserializer.deserialize_any(SizeVisitor)
    }
}

impl Serialize for ByteSize {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_parse_go_syntax() {
        let cases = [
            ("0", 0),
            ("5s", 5_000),
            ("30m", 30 * 60_000),
            ("1h", 3_600_000),
            ("720h", 720 * 3_600_000),
            ("1h30m", 90 * 60_000),
            ("1.5h", 90 * 60_000),
            ("250ms", 250),
            ("1m0.5s", 60_500),
            ("+2s", 2_000),
            (".5s", 500),
            (" 10s ", 10_000),
        ];
        for (text, millis) in cases {
            let parsed: Duration = text.parse().unwrap_or_else(|e| panic!("{text}: {e}"));
            assert_eq!(parsed.as_std().as_millis(), millis, "{text}");
        }
    }

    #[test]
    fn durations_keep_sub_millisecond_units() {
        let cases = [("1500ns", 1_500), ("3us", 3_000), ("3µs", 3_000)];
        for (text, nanos) in cases {
            let parsed: Duration = text.parse().unwrap();
            assert_eq!(parsed.as_std().as_nanos(), nanos, "{text}");
        }
    }

    #[test]
    fn durations_reject_garbage() {
        let cases = [
            "", "abc", "10", "5x", "-5s", "1h-", "s", "1..5s", "1d", "h1", "5 s", ".s",
        ];
        for text in cases {
            assert!(text.parse::<Duration>().is_err(), "{text:?} was accepted");
        }
    }

    #[test]
    fn duration_error_names_the_text() {
        let error = "5 parsecs".parse::<Duration>().unwrap_err();
        assert!(error.to_string().contains("`5 parsecs`"), "{error}");
    }

    #[test]
    fn durations_display_round_trips() {
        let cases = [
            ("0", "0s"),
            ("30m", "30m"),
            ("720h", "720h"),
            ("1.5h", "1h30m"),
            ("1500ms", "1s500ms"),
            ("90s", "1m30s"),
            ("1500ns", "1500ns"),
        ];
        for (text, shown) in cases {
            let parsed: Duration = text.parse().unwrap();
            assert_eq!(parsed.to_string(), shown);
            assert_eq!(shown.parse::<Duration>().unwrap(), parsed);
        }
    }

    #[test]
    fn sizes_parse_with_binary_units() {
        let cases = [
            ("10MB", 10 << 20),
            ("10MiB", 10 << 20),
            ("10M", 10 << 20),
            ("10mb", 10 << 20),
            ("512KB", 512 << 10),
            ("1GB", 1 << 30),
            ("2TB", 2 << 40),
            ("1.5KB", 1536),
            ("4096", 4096),
            ("4096B", 4096),
            ("10 MB", 10 << 20),
            ("0", 0),
        ];
        for (text, bytes) in cases {
            let parsed: ByteSize = text.parse().unwrap_or_else(|e| panic!("{text}: {e}"));
            assert_eq!(parsed.bytes(), bytes, "{text}");
        }
    }

    #[test]
    fn sizes_reject_garbage() {
        let cases = [
            "",
            "MB",
            "ten MB",
            "10XB",
            "-5MB",
            "10 M B",
            "99999999999TB",
            "1.2.3MB",
        ];
        for text in cases {
            assert!(text.parse::<ByteSize>().is_err(), "{text:?} was accepted");
        }
    }

    #[test]
    fn sizes_display_round_trips() {
        let cases = [
            (10 << 20, "10MB"),
            (1536, "1536B"),
            (3 << 10, "3KB"),
            (0, "0B"),
        ];
        for (bytes, shown) in cases {
            assert_eq!(ByteSize::from_bytes(bytes).to_string(), shown);
            assert_eq!(shown.parse::<ByteSize>().unwrap().bytes(), bytes);
        }
    }
}
