//! Value helpers every adapter shares.

/// A single-precision float widened by its shortest decimal form, so that
/// `REAL 1.1` becomes `1.1` and not `1.100000023841858`.
pub(crate) fn widen_f32(f: f32) -> f64 {
    if f.is_finite() {
        f.to_string().parse().unwrap_or(f as f64)
    } else {
        f as f64
    }
}

/// The civil date `days` days after 1970-01-01 (proleptic Gregorian), as
/// `YYYY-MM-DD` (H. Hinnant's `civil_from_days`).
pub(crate) fn date_from_days(days: i64) -> String {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    if (0..=9999).contains(&y) {
        format!("{y:04}-{m:02}-{d:02}")
    } else {
        format!("{y}-{m:02}-{d:02}")
    }
}

/// A time of day `micros` microseconds after midnight, as `HH:MM:SS` with
/// `.ffffff` when it has a fraction.
pub(crate) fn time_from_micros(micros: i64) -> String {
    let secs = micros.div_euclid(1_000_000);
    let frac = micros.rem_euclid(1_000_000);
    let (h, m, s) = (secs / 3600, (secs / 60) % 60, secs % 60);
    if frac == 0 {
        format!("{h:02}:{m:02}:{s:02}")
    } else {
        format!("{h:02}:{m:02}:{s:02}.{frac:06}")
    }
}

/// A timestamp `micros` microseconds after 1970-01-01 00:00:00, as
/// `YYYY-MM-DD HH:MM:SS[.ffffff]` (the form every adapter gives).
pub(crate) fn timestamp_from_micros(micros: i64) -> String {
    let days = micros.div_euclid(86_400_000_000);
    let rest = micros.rem_euclid(86_400_000_000);
    format!("{} {}", date_from_days(days), time_from_micros(rest))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn civil_dates_and_times() {
        assert_eq!(date_from_days(0), "1970-01-01");
        assert_eq!(date_from_days(-1), "1969-12-31");
        assert_eq!(date_from_days(11_016), "2000-02-29");
        assert_eq!(date_from_days(19_723), "2024-01-01");
        assert_eq!(time_from_micros(3_723_000_000), "01:02:03");
        assert_eq!(time_from_micros(1_500_000), "00:00:01.500000");
        assert_eq!(
            timestamp_from_micros(951_782_400_000_000 + 1),
            "2000-02-29 00:00:00.000001"
        );
        assert_eq!(timestamp_from_micros(-1), "1969-12-31 23:59:59.999999");
    }

    #[test]
    fn single_precision_widens_by_its_shortest_form() {
        assert_eq!(widen_f32(1.1), 1.1);
    }
}
