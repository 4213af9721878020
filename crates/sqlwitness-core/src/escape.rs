//! Control characters from inputs (question text, SQL, `db_id`s, file
//! names, servers' error messages) shown escaped wherever sqlwitness
//! writes for a terminal or a Markdown reader, so that no input can move
//! the cursor, recolour or clear a terminal, or reorder the text a reader
//! sees.

use std::borrow::Cow;

/// Whether `c` is shown escaped: C0 controls except newline and tab, DEL,
/// C1 controls, the bidirectional embeddings, overrides, isolates and marks
/// (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069), and the line and
/// paragraph separators (U+2028, U+2029).
pub fn is_escaped(c: char) -> bool {
    match c {
        '\n' | '\t' => false,
        '\0'..='\x1f' | '\x7f'..='\u{9f}' => true,
        '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{2028}' | '\u{2029}' => true,
        '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' => true,
        _ => false,
    }
}

/// `text` with every character of [`is_escaped`] written as `\xHH` (up to
/// U+00FF: `\x1b`, `\x9b`) or `\u{HHHH}` (`\u{202e}`); newlines and tabs
/// are kept. Borrowed when nothing needs escaping.
pub fn escape_controls(text: &str) -> Cow<'_, str> {
    if !text.chars().any(is_escaped) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if !is_escaped(c) {
            out.push(c);
        } else if (c as u32) <= 0xff {
            out.push_str(&format!("\\x{:02x}", c as u32));
        } else {
            out.push_str(&format!("\\u{{{:04x}}}", c as u32));
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_and_bidi_overrides_are_escaped_newlines_and_tabs_kept() {
        assert!(matches!(escape_controls("plain\ttext\n"), Cow::Borrowed(_)));
        assert_eq!(
            escape_controls("\x1b[2J\x1b]0;title\x07red\u{9b}"),
            "\\x1b[2J\\x1b]0;title\\x07red\\x9b"
        );
        assert_eq!(
            escape_controls("a\u{202e}cba\u{2066}\r\0\x7f"),
            "a\\u{202e}cba\\u{2066}\\x0d\\x00\\x7f"
        );
        assert_eq!(escape_controls("naïve – ok"), "naïve – ok");
        for c in (0u32..0x3000).filter_map(char::from_u32) {
            let shown = escape_controls(&c.to_string()).into_owned();
            assert!(
                !shown.chars().any(is_escaped),
                "U+{:04X} shown as {shown:?}",
                c as u32
            );
        }
    }
}
