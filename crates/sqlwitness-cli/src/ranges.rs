//! The range of every numeric flag, checked while the flags are parsed: a
//! value outside it is a usage error (exit 2) whose message names the flag
//! and the range (`invalid value '1e30' for '--timeout <TIMEOUT>': …`).
//! Each flag's `--help` states its range, and so does the README's table.

use clap::builder::RangedU64ValueParser;

/// The longest time limit, in seconds: a day.
pub const MAX_SECONDS: f64 = 86_400.0;
/// The shortest time limit, in seconds: a millisecond.
pub const MIN_SECONDS: f64 = 0.001;
/// The most worker threads (`-j`, `--num_cpus`).
pub const MAX_JOBS: u64 = 1024;
/// The largest result, in MiB: 64 GiB.
pub const MAX_RESULT_MB: f64 = 65_536.0;
/// The smallest result limit, in MiB: one KiB.
pub const MIN_RESULT_MB: f64 = 1.0 / 1024.0;
/// The longest predicted SQL text `--max-sql-bytes` may allow: 16 MiB.
pub const MAX_SQL_BYTES: u64 = 16 << 20;

/// A number of `what` parsed from the flag's text, finite.
fn finite(text: &str) -> Result<f64, String> {
    let v: f64 = text
        .trim()
        .parse()
        .map_err(|_| format!("`{text}` is not a number"))?;
    if !v.is_finite() {
        return Err(format!("`{text}` is not a finite number"));
    }
    Ok(v)
}

/// A time limit in seconds: 0.001 to 86400 (a day).
pub fn seconds(text: &str) -> Result<f64, String> {
    let v = finite(text)?;
    if (MIN_SECONDS..=MAX_SECONDS).contains(&v) {
        Ok(v)
    } else {
        Err(format!(
            "{} seconds is outside {MIN_SECONDS} to {MAX_SECONDS} (a day)",
            text.trim()
        ))
    }
}

/// A time limit in whole seconds: 1 to 86400 (a day).
pub fn whole_seconds() -> RangedU64ValueParser<u64> {
    RangedU64ValueParser::new().range(1..=MAX_SECONDS as u64)
}

/// A fraction from 0 to 1 (tolerances of a gate).
pub fn fraction(text: &str) -> Result<f64, String> {
    let v = finite(text)?;
    if (0.0..=1.0).contains(&v) {
        Ok(v)
    } else {
        Err(format!("{} is outside 0 to 1", text.trim()))
    }
}

/// A relative float tolerance: at least 0, below 1.
pub fn float_tolerance(text: &str) -> Result<f64, String> {
    let v = finite(text)?;
    if (0.0..1.0).contains(&v) {
        Ok(v)
    } else {
        Err(format!("{} is outside [0, 1)", text.trim()))
    }
}

/// A result limit in MiB: 1/1024 (one KiB) to 65536 (64 GiB).
pub fn result_mb(text: &str) -> Result<f64, String> {
    let v = finite(text)?;
    if (MIN_RESULT_MB..=MAX_RESULT_MB).contains(&v) {
        Ok(v)
    } else {
        Err(format!(
            "{} MiB is outside 0.0009765625 (one KiB) to {MAX_RESULT_MB} (64 GiB)",
            text.trim()
        ))
    }
}

/// Worker threads: 1 to 1024.
pub fn jobs() -> RangedU64ValueParser<usize> {
    RangedU64ValueParser::new().range(1..=MAX_JOBS)
}

/// A count from `min` to `max`.
pub fn count(min: u64, max: u64) -> RangedU64ValueParser<usize> {
    RangedU64ValueParser::new().range(min..=max)
}

/// A count of at least 1, no upper bound but the machine's (`--limit`).
pub fn at_least_one() -> RangedU64ValueParser<usize> {
    RangedU64ValueParser::new().range(1..)
}

/// `--partition K/N`: 1 <= K <= N <= 10000.
pub fn partition(text: &str) -> Result<String, String> {
    sqlwitness_run::Partition::parse(text)
        .map(|_| text.to_string())
        .map_err(|e| e.to_string())
}

/// A predicted SQL length limit in bytes: 1 to 16 MiB.
pub fn sql_bytes() -> RangedU64ValueParser<usize> {
    RangedU64ValueParser::new().range(1..=MAX_SQL_BYTES)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_range_takes_its_ends_and_refuses_past_them() {
        assert_eq!(seconds("0.001"), Ok(0.001));
        assert_eq!(seconds("86400"), Ok(86_400.0));
        for bad in ["0", "-1", "NaN", "inf", "-inf", "1e30", "86400.5", "x", ""] {
            assert!(seconds(bad).is_err(), "{bad}");
        }
        assert_eq!(fraction("1"), Ok(1.0));
        assert_eq!(fraction("0"), Ok(0.0));
        for bad in ["-0.1", "1.01", "NaN", "inf"] {
            assert!(fraction(bad).is_err(), "{bad}");
        }
        assert!(float_tolerance("1").is_err());
        assert_eq!(float_tolerance("0.5"), Ok(0.5));
        assert_eq!(result_mb("0.0009765625"), Ok(MIN_RESULT_MB));
        assert!(result_mb("0.0001").is_err());
        assert!(result_mb("65537").is_err());
        assert!(result_mb("NaN").is_err());
    }
}
