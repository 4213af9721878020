//! Strict ISO-8601 date and datetime text, and the one canonical rendering
//! both sides of a migration use (so checksums agree).
//!
//! Accepted: `YYYY-MM-DD`; `YYYY-MM-DD[ T]HH:MM[:SS[.f{1,6}]]`; years
//! 1000–9999 (MySQL's documented DATE range), valid calendar dates only.

use chrono::{Datelike, NaiveDate, NaiveDateTime, NaiveTime, Timelike};

fn digits(b: &[u8]) -> Option<u32> {
    if b.is_empty() || !b.iter().all(u8::is_ascii_digit) {
        return None;
    }
    Some(b.iter().fold(0u32, |acc, d| acc * 10 + u32::from(d - b'0')))
}

pub(crate) fn parse_date(s: &str) -> Option<NaiveDate> {
    let b = s.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return None;
    }
    let y = digits(&b[0..4])?;
    if !(1000..=9999).contains(&y) {
        return None;
    }
    NaiveDate::from_ymd_opt(y as i32, digits(&b[5..7])?, digits(&b[8..10])?)
}

/// A date with a time of day (a bare date is not a datetime here).
pub(crate) fn parse_datetime(s: &str) -> Option<NaiveDateTime> {
    let b = s.as_bytes();
    if b.len() < 16 || !(b[10] == b' ' || b[10] == b'T') || b[13] != b':' {
        return None;
    }
    let date = parse_date(&s[..10])?;
    let hour = digits(&b[11..13])?;
    let minute = digits(&b[14..16])?;
    let rest = &b[16..];
    let (second, micro) = if rest.is_empty() {
        (0, 0)
    } else {
        if rest[0] != b':' || rest.len() < 3 {
            return None;
        }
        let second = digits(&rest[1..3])?;
        let frac = &rest[3..];
        let micro = if frac.is_empty() {
            0
        } else {
            if frac[0] != b'.' || frac.len() < 2 || frac.len() > 7 {
                return None;
            }
            let f = &frac[1..];
            digits(f)? * 10u32.pow(6 - f.len() as u32)
        };
        (second, micro)
    };
    let time = NaiveTime::from_hms_micro_opt(hour, minute, second, micro)?;
    Some(date.and_time(time))
}

/// A `YYYY-MM-DD` that is no strict date here but that a MySQL or MariaDB
/// `date` holds where zero parts are allowed, and that a MySQL-family dump
/// may keep: a zero month or day (`1948-01-00`, `0000-00-00`), or a
/// calendar date before the year 1000.
pub(crate) fn is_lenient_date(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' || parse_date(s).is_some() {
        return false;
    }
    let (Some(y), Some(m), Some(d)) = (digits(&b[0..4]), digits(&b[5..7]), digits(&b[8..10]))
    else {
        return false;
    };
    m <= 12 && d <= 31 && (m == 0 || d == 0 || NaiveDate::from_ymd_opt(y as i32, m, d).is_some())
}

/// A datetime whose date is an [`is_lenient_date`] and whose time of day is
/// one [`parse_datetime`] reads (`0000-00-00 00:00:00`,
/// `2020-02-00 05:06:07.500000`).
pub(crate) fn is_lenient_datetime(s: &str) -> bool {
    s.len() >= 16
        && s.is_char_boundary(10)
        && is_lenient_date(&s[..10])
        && parse_datetime(&format!("2000-01-01{}", &s[10..])).is_some()
}

/// `YYYY-MM-DD` (years are 1000–9999 here: four digits).
pub(crate) fn date_text(d: NaiveDate) -> String {
    format!("{:04}-{:02}-{:02}", d.year(), d.month(), d.day())
}

/// `YYYY-MM-DD HH:MM:SS`, plus `.ffffff` without trailing zeros when the
/// value has a fraction (PostgreSQL's own rendering).
pub(crate) fn datetime_text(dt: NaiveDateTime) -> String {
    let mut text = format!(
        "{} {:02}:{:02}:{:02}",
        date_text(dt.date()),
        dt.hour(),
        dt.minute(),
        dt.second()
    );
    let micro = dt.nanosecond() / 1000;
    if micro != 0 {
        let frac = format!("{micro:06}");
        text.push('.');
        text.push_str(frac.trim_end_matches('0'));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strict_forms() {
        assert!(parse_date("2020-02-29").is_some());
        assert!(parse_date("2019-02-29").is_none());
        assert!(parse_date("2020-1-05").is_none());
        assert!(parse_date("0999-01-01").is_none());
        assert!(parse_datetime("2020-02-29").is_none());
        let dt = parse_datetime("2020-02-29T10:11").unwrap();
        assert_eq!(datetime_text(dt), "2020-02-29 10:11:00");
        let dt = parse_datetime("2020-02-29 10:11:12.50").unwrap();
        assert_eq!(datetime_text(dt), "2020-02-29 10:11:12.5");
        assert!(parse_datetime("2020-02-29 10:11:12.1234567").is_none());
        assert!(parse_datetime("2020-02-29 25:11:12").is_none());
        let d = parse_date("1000-01-09").unwrap();
        assert_eq!(date_text(d), d.format("%Y-%m-%d").to_string());
        let dt = parse_datetime("9999-12-31 23:59:59.000001").unwrap();
        assert_eq!(datetime_text(dt), "9999-12-31 23:59:59.000001");
    }

    #[test]
    fn lenient_forms_are_what_a_mysql_date_holds_and_no_calendar_does() {
        for ok in ["0000-00-00", "1948-01-00", "2020-00-15", "0999-01-01"] {
            assert!(is_lenient_date(ok), "{ok}");
        }
        for no in [
            "2020-02-29",
            "2019-02-29",
            "2020-13-00",
            "2020-00-32",
            "20-01-00",
            "x",
        ] {
            assert!(!is_lenient_date(no), "{no}");
        }
        assert!(is_lenient_datetime("0000-00-00 00:00:00"));
        assert!(is_lenient_datetime("2020-02-00 05:06:07.500000"));
        assert!(!is_lenient_datetime("2020-02-01 05:06:07"));
        assert!(!is_lenient_datetime("2020-02-00 25:06:07"));
        assert!(!is_lenient_datetime("2020-02-00"));
    }
}
