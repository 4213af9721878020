//! PostgreSQL's text form of values the driver hands over only in the
//! binary protocol: `interval`, `money`, `tsvector`, `inet` and `cidr`,
//! `macaddr`, `bit`, `oid`, `timetz`, the geometric types, ranges and
//! arrays of any number of dimensions. Each is written as the server writes it to psql
//! (its `*_out` function with the settings every sqlwitness session
//! pins), so that a value reads the same here as in the text a dump's copy
//! on another engine holds.

/// `interval` (microseconds, days, months) as `interval_out` writes it
/// with `IntervalStyle = iso_8601`, the style every sqlwitness session pins
/// (`dialects/postgres.yaml`): `P1Y2M3DT4H5M6.789S`, `PT-1S`, `PT0S`.
pub(crate) fn interval_text(b: &[u8]) -> Option<String> {
    if b.len() != 16 {
        return None;
    }
    let micros = i64::from_be_bytes(b[0..8].try_into().ok()?);
    let days = i32::from_be_bytes(b[8..12].try_into().ok()?);
    let months = i32::from_be_bytes(b[12..16].try_into().ok()?);
    let hours = micros / 3_600_000_000;
    let rest = micros - hours * 3_600_000_000;
    let minutes = rest / 60_000_000;
    let rest = rest - minutes * 60_000_000;
    let seconds = rest / 1_000_000;
    let fraction = rest - seconds * 1_000_000;
    if months == 0 && days == 0 && micros == 0 {
        return Some("PT0S".into());
    }
    let mut out = String::from("P");
    let mut part = |value: i64, unit: char| {
        if value != 0 {
            out.push_str(&format!("{value}{unit}"));
        }
    };
    part(i64::from(months / 12), 'Y');
    part(i64::from(months % 12), 'M');
    part(i64::from(days), 'D');
    if micros != 0 {
        out.push('T');
        for (value, unit) in [(hours, 'H'), (minutes, 'M')] {
            if value != 0 {
                out.push_str(&format!("{value}{unit}"));
            }
        }
        if seconds != 0 || fraction != 0 {
            if seconds < 0 || fraction < 0 {
                out.push('-');
            }
            out.push_str(&seconds.unsigned_abs().to_string());
            push_fraction(&mut out, fraction.unsigned_abs());
            out.push('S');
        }
    }
    Some(out)
}

/// A second's `micros` as the servers write them after the seconds:
/// `.5`, `.000001`, nothing for none.
fn push_fraction(out: &mut String, micros: u64) {
    if micros != 0 {
        out.push('.');
        out.push_str(format!("{micros:06}").trim_end_matches('0'));
    }
}

/// `money` (an amount in cents) as `cash_out` writes it in the C locale
/// (`lc_monetary = C`, as the sqlwitness servers run): `$1,234.56`,
/// `-$0.05`.
pub(crate) fn money_text(b: &[u8]) -> Option<String> {
    let cents = i64::from_be_bytes(b.try_into().ok()?);
    let abs = cents.unsigned_abs();
    let whole = (abs / 100).to_string();
    let mut grouped = String::new();
    for (i, c) in whole.chars().enumerate() {
        if i > 0 && (whole.len() - i) % 3 == 0 {
            grouped.push(',');
        }
        grouped.push(c);
    }
    Some(format!(
        "{}${grouped}.{:02}",
        if cents < 0 { "-" } else { "" },
        abs % 100
    ))
}

/// `tsvector` as `tsvectorout` writes it: `'fat':2A 'rat':3`, each lexeme
/// quoted (a quote or backslash in it doubled), its positions with their
/// weight (A, B, C; D is not written).
pub(crate) fn tsvector_text(b: &[u8]) -> Option<String> {
    let mut r = Reader { b, at: 0 };
    let count = r.u32()?;
    let mut words = Vec::new();
    for _ in 0..count {
        let lexeme = r.cstr()?;
        let positions = r.u16()?;
        let mut word = format!("'{}'", lexeme.replace('\\', "\\\\").replace('\'', "''"));
        for k in 0..positions {
            let p = r.u16()?;
            word.push(if k == 0 { ':' } else { ',' });
            word.push_str(&(p & 0x3fff).to_string());
            match p >> 14 {
                3 => word.push('A'),
                2 => word.push('B'),
                1 => word.push('C'),
                _ => {}
            }
        }
        words.push(word);
    }
    r.done().then(|| words.join(" "))
}

/// An array of any number of dimensions, as `array_out` writes it:
/// `{{1,2},{3,NULL}}`, with `[0:1]={…}` before it where a lower bound is
/// not 1; `None` for an element type this does not read (the caller falls
/// back). `element` gives one element's text from its type's oid and bytes.
pub(crate) fn array_text(
    b: &[u8],
    element: &dyn Fn(u32, &[u8]) -> Option<String>,
) -> Option<String> {
    let mut r = Reader { b, at: 0 };
    let dims = usize::try_from(r.i32()?).ok()?;
    let _has_nulls = r.i32()?;
    let oid = r.u32()?;
    if dims == 0 {
        return Some("{}".into());
    }
    let mut lengths = Vec::with_capacity(dims);
    let mut bounds = String::new();
    let mut lower_bounds_are_one = true;
    for _ in 0..dims {
        let len = usize::try_from(r.i32()?).ok()?;
        let lower = r.i32()?;
        lower_bounds_are_one &= lower == 1;
        bounds.push_str(&format!("[{lower}:{}]", i64::from(lower) + len as i64 - 1));
        lengths.push(len);
    }
    let total: usize = lengths.iter().product();
    let mut cells = Vec::with_capacity(total);
    for _ in 0..total {
        match usize::try_from(r.i32()?) {
            // A negative length is NULL.
            Err(_) => cells.push("NULL".to_string()),
            Ok(len) => cells.push(array_element(&element(oid, r.take(len)?)?)),
        }
    }
    if !r.done() {
        return None;
    }
    let mut cells = cells.into_iter();
    let mut out = String::new();
    nest(&lengths, &mut cells, &mut out);
    Some(if lower_bounds_are_one {
        out
    } else {
        format!("{bounds}={out}")
    })
}

/// Reads a binary value's fields in order (big-endian, as the server sends
/// them); `None` past its end.
struct Reader<'a> {
    b: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let s = self.b.get(self.at..self.at.checked_add(n)?)?;
        self.at += n;
        Some(s)
    }

    fn u8(&mut self) -> Option<u8> {
        Some(self.take(1)?[0])
    }

    fn u16(&mut self) -> Option<u16> {
        Some(u16::from_be_bytes(self.take(2)?.try_into().ok()?))
    }

    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_be_bytes(self.take(4)?.try_into().ok()?))
    }

    fn i32(&mut self) -> Option<i32> {
        Some(i32::from_be_bytes(self.take(4)?.try_into().ok()?))
    }

    fn i64(&mut self) -> Option<i64> {
        Some(i64::from_be_bytes(self.take(8)?.try_into().ok()?))
    }

    fn f64(&mut self) -> Option<f64> {
        Some(f64::from_be_bytes(self.take(8)?.try_into().ok()?))
    }

    /// A NUL-terminated UTF-8 string.
    fn cstr(&mut self) -> Option<&'a str> {
        let rest = self.b.get(self.at..)?;
        let end = rest.iter().position(|&c| c == 0)?;
        self.at += end + 1;
        std::str::from_utf8(&rest[..end]).ok()
    }

    /// Whether every byte was read.
    fn done(&self) -> bool {
        self.at == self.b.len()
    }
}

fn nest(lengths: &[usize], cells: &mut impl Iterator<Item = String>, out: &mut String) {
    out.push('{');
    for i in 0..lengths[0] {
        if i > 0 {
            out.push(',');
        }
        if lengths.len() == 1 {
            out.push_str(&cells.next().unwrap_or_default());
        } else {
            nest(&lengths[1..], cells, out);
        }
    }
    out.push('}');
}

/// One element of an array's text form: quoted (with `"` and `\`
/// escaped) when it is empty, is `NULL` in any letter case, or holds a
/// space, a comma, a brace, a quote or a backslash — as PostgreSQL's
/// `array_out` writes it.
pub(crate) fn array_element(s: &str) -> String {
    let plain = !s.is_empty()
        && !s.eq_ignore_ascii_case("null")
        && !s
            .chars()
            .any(|c| c.is_whitespace() || matches!(c, ',' | '{' | '}' | '"' | '\\'));
    if plain {
        s.to_string()
    } else {
        format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
    }
}

/// `inet` and `cidr` (family, netmask bits, whether a `cidr`, the
/// address's length, its bytes) as `inet_out` and `cidr_out` write them:
/// `192.168.1.5/24`, `10.0.0.0/8`, an `inet` of a whole address without
/// its netmask.
pub(crate) fn inet_text(b: &[u8], cidr: bool) -> Option<String> {
    let mut r = Reader { b, at: 0 };
    let family = r.u8()?;
    let bits = r.u8()?;
    let _is_cidr = r.u8()?;
    let len = r.u8()?;
    let addr = r.take(usize::from(len))?;
    if !r.done() {
        return None;
    }
    let (text, full) = match family {
        2 => {
            let a: [u8; 4] = addr.try_into().ok()?;
            (std::net::Ipv4Addr::from(a).to_string(), 32)
        }
        3 => {
            let a: [u8; 16] = addr.try_into().ok()?;
            (std::net::Ipv6Addr::from(a).to_string(), 128)
        }
        _ => return None,
    };
    Some(if cidr || bits != full {
        format!("{text}/{bits}")
    } else {
        text
    })
}

/// `macaddr` and `macaddr8` as `08:00:2b:01:02:03`.
pub(crate) fn macaddr_text(b: &[u8]) -> Option<String> {
    if b.len() != 6 && b.len() != 8 {
        return None;
    }
    Some(
        b.iter()
            .map(|x| format!("{x:02x}"))
            .collect::<Vec<_>>()
            .join(":"),
    )
}

/// `bit(n)` and `bit varying` (the length in bits, then the bits) as
/// `1010`.
pub(crate) fn bit_text(b: &[u8]) -> Option<String> {
    let mut r = Reader { b, at: 0 };
    let n = usize::try_from(r.i32()?).ok()?;
    let bytes = r.take(n.div_ceil(8))?;
    if !r.done() {
        return None;
    }
    Some(
        (0..n)
            .map(|i| {
                if bytes[i / 8] & (0x80 >> (i % 8)) != 0 {
                    '1'
                } else {
                    '0'
                }
            })
            .collect(),
    )
}

/// `oid` as its number.
pub(crate) fn oid_text(b: &[u8]) -> Option<String> {
    Some(u32::from_be_bytes(b.try_into().ok()?).to_string())
}

/// `time with time zone` (microseconds since midnight, then the zone's
/// offset in seconds west of UTC) as `timetz_out` writes it:
/// `12:00:00.5+02`, `09:30:00-03:30`.
pub(crate) fn timetz_text(b: &[u8]) -> Option<String> {
    let mut r = Reader { b, at: 0 };
    let micros = r.i64()?;
    let west = r.i32()?;
    if !r.done() || !(0..=86_400_000_000).contains(&micros) {
        return None;
    }
    let secs = micros / 1_000_000;
    let frac = micros % 1_000_000;
    let mut out = format!("{:02}:{:02}:{:02}", secs / 3600, secs / 60 % 60, secs % 60);
    push_fraction(&mut out, frac.unsigned_abs());
    let east = -i64::from(west);
    out.push(if east < 0 { '-' } else { '+' });
    let e = east.abs();
    out.push_str(&format!("{:02}", e / 3600));
    if e % 3600 != 0 {
        out.push_str(&format!(":{:02}", e / 60 % 60));
        if e % 60 != 0 {
            out.push_str(&format!(":{:02}", e % 60));
        }
    }
    Some(out)
}

/// A range (its flags, then each finite bound's length and binary value)
/// as `range_out` writes it, each bound by `bound` (`None`: not read
/// here): `[1,5)`, `[2024-01-01,2024-02-01)`, `(,3]`, `empty`.
pub(crate) fn range_text(b: &[u8], bound: &dyn Fn(&[u8]) -> Option<String>) -> Option<String> {
    const EMPTY: u8 = 0x01;
    const LB_INC: u8 = 0x02;
    const UB_INC: u8 = 0x04;
    const LB_INF: u8 = 0x08;
    const UB_INF: u8 = 0x10;
    let mut r = Reader { b, at: 0 };
    let flags = r.u8()?;
    if flags & EMPTY != 0 {
        return r.done().then(|| "empty".to_string());
    }
    let mut take = |infinite: bool| -> Option<String> {
        if infinite {
            return Some(String::new());
        }
        let len = usize::try_from(r.i32()?).ok()?;
        bound(r.take(len)?)
    };
    let lower = take(flags & LB_INF != 0)?;
    let upper = take(flags & UB_INF != 0)?;
    if !r.done() {
        return None;
    }
    Some(format!(
        "{}{lower},{upper}{}",
        if flags & LB_INC != 0 { '[' } else { '(' },
        if flags & UB_INC != 0 { ']' } else { ')' }
    ))
}

/// A `double precision` as `float8out` writes it (shortest exact digits;
/// fixed notation from 1e-4 below 1e15, else `1e+20`, `1.5e-05`).
pub(crate) fn float8_text(x: f64) -> String {
    if x.is_nan() {
        return "NaN".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "Infinity" } else { "-Infinity" }.into();
    }
    let sci = format!("{x:e}");
    let (mantissa, exp) = sci.split_once('e').unwrap_or((sci.as_str(), "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    if (-4..15).contains(&exp) || x == 0.0 {
        format!("{x}")
    } else {
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{mantissa}e{sign}{:02}", exp.abs())
    }
}

/// The geometric types (`point`, `box`, `lseg`, `circle`, `polygon`,
/// `path`, `line`: their numbers as `double precision`) as their `*_out`
/// functions write them: `(1.5,2)`, `(1,1),(0,0)`, `[(0,0),(1,1)]`,
/// `<(0,0),2>`, `((0,0),(1,1))`, `{1,-1,0}`.
pub(crate) fn geometric_text(type_name: &str, b: &[u8]) -> Option<String> {
    let mut r = Reader { b, at: 0 };
    let (closed, n) = match type_name {
        "point" => (true, 2),
        "circle" | "line" => (true, 3),
        "box" | "lseg" => (true, 4),
        "polygon" => (true, 2 * usize::try_from(r.i32()?).ok()?),
        "path" => {
            let closed = r.u8()? != 0;
            (closed, 2 * usize::try_from(r.i32()?).ok()?)
        }
        _ => return None,
    };
    let f: Vec<String> = (0..n)
        .map(|_| r.f64().map(float8_text))
        .collect::<Option<_>>()?;
    if !r.done() {
        return None;
    }
    let points = f
        .chunks(2)
        .map(|p| format!("({},{})", p[0], p.get(1).map_or("", String::as_str)))
        .collect::<Vec<_>>()
        .join(",");
    Some(match type_name {
        "point" | "box" => points,
        "lseg" => format!("[{points}]"),
        "circle" => format!("<({},{}),{}>", f[0], f[1], f[2]),
        "line" => format!("{{{},{},{}}}", f[0], f[1], f[2]),
        _ if closed => format!("({points})"),
        _ => format!("[{points}]"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn interval(micros: i64, days: i32, months: i32) -> String {
        let mut b = micros.to_be_bytes().to_vec();
        b.extend(days.to_be_bytes());
        b.extend(months.to_be_bytes());
        interval_text(&b).unwrap()
    }

    #[test]
    fn intervals_read_as_interval_out_writes_them() {
        assert_eq!(interval(0, 0, 0), "PT0S");
        assert_eq!(interval(14_706_789_000, 3, 14), "P1Y2M3DT4H5M6.789S");
        assert_eq!(interval(0, 1, 0), "P1D");
        assert_eq!(interval(-1_000_000, 0, 0), "PT-1S");
        assert_eq!(interval(3_600_000_000, -2, 0), "P-2DT1H");
        assert_eq!(interval(0, 0, -13), "P-1Y-1M");
        assert_eq!(interval(90_000_000_000, 0, 0), "PT25H");
        assert_eq!(interval(500_000, 0, 1), "P1MT0.5S");
        assert_eq!(interval(-90_500_000, 0, 0), "PT-1M-30.5S");
    }

    #[test]
    fn money_reads_as_cash_out_writes_it_in_the_c_locale() {
        let m = |c: i64| money_text(&c.to_be_bytes()).unwrap();
        assert_eq!(m(123_456), "$1,234.56");
        assert_eq!(m(-5), "-$0.05");
        assert_eq!(m(0), "$0.00");
        assert_eq!(m(100_000_000), "$1,000,000.00");
    }

    #[test]
    fn tsvectors_read_as_tsvectorout_writes_them() {
        let mut b = 2u32.to_be_bytes().to_vec();
        b.extend(b"fat\0");
        b.extend(2u16.to_be_bytes());
        b.extend((2u16 | 3 << 14).to_be_bytes());
        b.extend(4u16.to_be_bytes());
        b.extend(b"it's\0");
        b.extend(0u16.to_be_bytes());
        assert_eq!(tsvector_text(&b).unwrap(), "'fat':2A,4 'it''s'");
    }

    #[test]
    fn arrays_of_any_dimension_read_as_array_out_writes_them() {
        let int4 = |oid: u32, b: &[u8]| {
            (oid == 23).then(|| i32::from_be_bytes(b.try_into().unwrap()).to_string())
        };
        let array = |dims: &[(i32, i32)], cells: &[Option<i32>]| {
            let mut b = (dims.len() as i32).to_be_bytes().to_vec();
            b.extend(1i32.to_be_bytes());
            b.extend(23i32.to_be_bytes());
            for (len, lower) in dims {
                b.extend(len.to_be_bytes());
                b.extend(lower.to_be_bytes());
            }
            for c in cells {
                match c {
                    Some(v) => {
                        b.extend(4i32.to_be_bytes());
                        b.extend(v.to_be_bytes());
                    }
                    None => b.extend((-1i32).to_be_bytes()),
                }
            }
            array_text(&b, &int4).unwrap()
        };
        assert_eq!(
            array(&[(2, 1), (2, 1)], &[Some(1), Some(2), Some(3), None]),
            "{{1,2},{3,NULL}}"
        );
        assert_eq!(array(&[(2, 0)], &[Some(7), Some(8)]), "[0:1]={7,8}");
        assert_eq!(array(&[], &[]), "{}");
    }

    #[test]
    fn array_elements_are_quoted_as_array_out_quotes_them() {
        assert_eq!(array_element("Trailers"), "Trailers");
        assert_eq!(array_element("Deleted Scenes"), "\"Deleted Scenes\"");
        assert_eq!(array_element(""), "\"\"");
        assert_eq!(array_element("null"), "\"null\"");
        assert_eq!(array_element("a\"b\\"), "\"a\\\"b\\\\\"");
        assert_eq!(array_element("x,y"), "\"x,y\"");
    }
}
