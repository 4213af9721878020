//! The encoding a PostgreSQL dump's text is written in, from the statement
//! that says so on (`SET client_encoding = 'LATIN1'`, `\encoding`).
//!
//! The loader's session speaks UTF-8, and the splitter lexes UTF-8 text.
//! A dump written in a single-byte encoding whose bytes below 0x80 are
//! ASCII (so that no byte of a character is a quote, a backslash or a
//! semicolon) is read into UTF-8 by the splitter, character for character
//! as the server converts it when psql sends the same bytes under that
//! client encoding: the statement that sets the encoding is then not run,
//! and the server's session stays UTF-8. `SQL_ASCII` disables the server's
//! conversion but not its check: the bytes must be the database's own
//! encoding, UTF-8, which is how the splitter reads them. Multibyte
//! encodings other than UTF-8 (`SJIS`, `BIG5`, `GBK` …), whose characters
//! can hold a quote or a backslash byte, are refused.

/// How the dump's bytes are read into text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TextEncoding {
    #[default]
    Utf8,
    /// ISO 8859-1: each byte is the character of the same code.
    Latin1,
    /// ISO 8859-15: Latin-1 with the euro sign and seven letters in place
    /// of eight symbols.
    Latin9,
    /// Windows-1252: Latin-1 with printable characters in 0x80–0x9F (five
    /// of which have none).
    Win1252,
}

/// Windows-1252's characters for 0x80–0x9F (0: none).
const WIN1252_HIGH: [u16; 32] = [
    0x20AC, 0, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039,
    0x0152, 0, 0x017D, 0, 0, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x02DC,
    0x2122, 0x0161, 0x203A, 0x0153, 0, 0x017E, 0x0178,
];

/// A byte the encoding has no character for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NoCharacter(pub u8);

impl TextEncoding {
    /// The encoding a PostgreSQL encoding name names, spelled as the
    /// server accepts it (letters and digits compared without case:
    /// `LATIN1`, `latin-1`, `ISO_8859_1`, `WIN1252`, `windows-1252` …);
    /// `None` for any other.
    pub fn from_postgres_name(name: &str) -> Option<TextEncoding> {
        let n: String = name
            .chars()
            .filter(|c| c.is_ascii_alphanumeric())
            .collect::<String>()
            .to_ascii_lowercase();
        match n.as_str() {
            "utf8" | "unicode" => Some(TextEncoding::Utf8),
            "latin1" | "iso88591" => Some(TextEncoding::Latin1),
            "latin9" | "iso885915" => Some(TextEncoding::Latin9),
            "win1252" | "windows1252" => Some(TextEncoding::Win1252),
            _ => None,
        }
    }

    /// Whether a PostgreSQL encoding name is `SQL_ASCII` (in any spelling
    /// the server accepts).
    pub fn is_sql_ascii(name: &str) -> bool {
        name.chars()
            .filter(|c| c.is_ascii_alphanumeric())
            .collect::<String>()
            .eq_ignore_ascii_case("sqlascii")
    }

    /// The server's name of the encoding.
    pub fn name(self) -> &'static str {
        match self {
            TextEncoding::Utf8 => "UTF8",
            TextEncoding::Latin1 => "LATIN1",
            TextEncoding::Latin9 => "LATIN9",
            TextEncoding::Win1252 => "WIN1252",
        }
    }

    /// The character of a byte at or above 0x80 in this single-byte
    /// encoding.
    fn high(self, b: u8) -> Result<char, NoCharacter> {
        let code = match self {
            TextEncoding::Utf8 | TextEncoding::Latin1 => u32::from(b),
            TextEncoding::Latin9 => match b {
                0xA4 => 0x20AC,
                0xA6 => 0x0160,
                0xA8 => 0x0161,
                0xB4 => 0x017D,
                0xB8 => 0x017E,
                0xBC => 0x0152,
                0xBD => 0x0153,
                0xBE => 0x0178,
                _ => u32::from(b),
            },
            TextEncoding::Win1252 if (0x80..0xA0).contains(&b) => {
                u32::from(WIN1252_HIGH[usize::from(b - 0x80)])
            }
            TextEncoding::Win1252 => u32::from(b),
        };
        match char::from_u32(code) {
            Some(c) if code != 0 => Ok(c),
            _ => Err(NoCharacter(b)),
        }
    }

    /// `bytes` of this single-byte encoding as UTF-8 text appended to
    /// `out` (for [`TextEncoding::Utf8`], the bytes as they are).
    pub fn decode_into(self, bytes: &[u8], out: &mut Vec<u8>) -> Result<(), NoCharacter> {
        if self == TextEncoding::Utf8 {
            out.extend_from_slice(bytes);
            return Ok(());
        }
        out.reserve(bytes.len());
        let mut buf = [0u8; 4];
        for &b in bytes {
            if b < 0x80 {
                out.push(b);
            } else {
                out.extend_from_slice(self.high(b)?.encode_utf8(&mut buf).as_bytes());
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode(e: TextEncoding, bytes: &[u8]) -> Result<String, NoCharacter> {
        let mut out = Vec::new();
        e.decode_into(bytes, &mut out)?;
        Ok(String::from_utf8(out).unwrap())
    }

    #[test]
    fn single_byte_encodings_read_as_the_server_converts_them() {
        assert_eq!(
            TextEncoding::from_postgres_name("LATIN1"),
            Some(TextEncoding::Latin1)
        );
        assert_eq!(
            TextEncoding::from_postgres_name("iso-8859-1"),
            Some(TextEncoding::Latin1)
        );
        assert_eq!(
            TextEncoding::from_postgres_name("Windows-1252"),
            Some(TextEncoding::Win1252)
        );
        assert_eq!(TextEncoding::from_postgres_name("SJIS"), None);
        assert_eq!(TextEncoding::from_postgres_name("SQL_ASCII"), None);
        assert!(TextEncoding::is_sql_ascii("sql_ascii"));
        assert!(!TextEncoding::is_sql_ascii("UTF8"));
        // 'Curaçao', 'São Paulo' as a LATIN1 dump writes them.
        assert_eq!(
            decode(TextEncoding::Latin1, b"'Cura\xe7ao', 'S\xe3o Paulo'").unwrap(),
            "'Curaçao', 'São Paulo'"
        );
        assert_eq!(decode(TextEncoding::Latin1, b"\x80").unwrap(), "\u{80}");
        assert_eq!(decode(TextEncoding::Latin9, b"\xa4\xe9").unwrap(), "€é");
        assert_eq!(decode(TextEncoding::Win1252, b"\x80\x96").unwrap(), "€–");
        assert_eq!(
            decode(TextEncoding::Win1252, b"a\x81"),
            Err(NoCharacter(0x81))
        );
    }
}
