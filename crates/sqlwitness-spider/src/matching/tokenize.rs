//! `process_sql.tokenize`: quotes to `"`, string literals set aside, the
//! rest split by nltk's `word_tokenize` (its `NLTKWordTokenizer`, run
//! without sentence splitting), lowercased, the literals put back and
//! `!`/`>`/`<` glued to a following `=`.
//!
//! nltk's tokenizer is a list of regular expressions applied to the whole
//! text in turn. Once the literals are set aside the text holds no `'` and
//! no `"`, so the rules that need one never fire; the others are emulated
//! here one function each, in nltk's order.

use std::collections::HashMap;

use super::Raised;

/// Python's `str.isspace` (what `re`'s `\s` and `str.split()` match).
pub(super) fn py_isspace(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// Python's `\w` on text: letters, digits and `_`.
fn py_word(c: char) -> bool {
    c == '_' || c.is_alphanumeric()
}

/// Python's `\d` on text: a decimal digit.
fn py_digit(c: char) -> bool {
    c.is_ascii_digit() || (!c.is_ascii() && c.is_numeric())
}

/// The tokens of `process_sql.tokenize(query)`, or the assertion it raises
/// on an odd number of quotes.
pub(super) fn spider_tokenize(query: &str) -> Result<Vec<String>, Raised> {
    let text: Vec<char> = query
        .chars()
        .map(|c| if c == '\'' { '"' } else { c })
        .collect();
    let quotes: Vec<usize> = (0..text.len()).filter(|&i| text[i] == '"').collect();
    if !quotes.len().is_multiple_of(2) {
        return Err(Raised::assertion("Unexpected quote"));
    }
    // Each literal (quotes included) becomes `__val_<start>_<end>__`; the
    // evaluator replaces from the last pair to the first, so the positions
    // in the names are those of the text as read.
    let mut replaced = String::with_capacity(text.len());
    let mut literals: HashMap<String, String> = HashMap::new();
    let mut from = 0;
    for pair in quotes.chunks(2) {
        let (a, b) = (pair[0], pair[1]);
        replaced.extend(&text[from..a]);
        let key = format!("__val_{a}_{b}__");
        replaced.push_str(&key);
        literals.insert(key, text[a..=b].iter().collect());
        from = b + 1;
    }
    replaced.extend(&text[from..]);
    let mut toks: Vec<String> = nltk_word_tokenize(&replaced)
        .into_iter()
        .map(|t| t.to_lowercase())
        .collect();
    for t in &mut toks {
        if let Some(v) = literals.get(t.as_str()) {
            *t = v.clone();
        }
    }
    Ok(glue_comparisons(toks))
}

/// `!`, `>` or `<` before a `=` token become one token. The evaluator
/// rebuilds the list from the last `=` to the first; the merges never
/// overlap, so one pass from the left gives the same list, except for a
/// `=` first in the list, which looks at the last token (`toks[-1]`) and
/// gives `toks[:-1] + [last + "="] + toks[1:]`, done last.
fn glue_comparisons(toks: Vec<String>) -> Vec<String> {
    let prefix = |t: &str| matches!(t, "!" | ">" | "<");
    let first_is_eq = toks.first().is_some_and(|t| t == "=");
    let mut out: Vec<String> = Vec::with_capacity(toks.len());
    for t in toks {
        match out.last_mut() {
            Some(pre) if t == "=" && prefix(pre) => pre.push('='),
            _ => out.push(t),
        }
    }
    if first_is_eq && out.len() > 1 && out.last().is_some_and(|t| prefix(t)) {
        let last = out.pop().expect("a last token");
        let mut wrapped = out.clone();
        wrapped.push(format!("{last}="));
        wrapped.extend(out.drain(1..));
        wrapped.push(last);
        return wrapped;
    }
    out
}

/// nltk's `word_tokenize(text, preserve_line=True)` on text without `'`
/// and `"`.
pub(super) fn nltk_word_tokenize(text: &str) -> Vec<String> {
    let mut t: Vec<char> = text.chars().collect();
    // Starting quotes.
    t = pad_runs(&t, |c| matches!(c, '«' | '“' | '‘' | '„'), |c| c == '`');
    t = pad_double_backticks(&t);
    // Punctuation.
    t = final_period(
        &t,
        &[']', ')', '}', '>', '"', '\'', '»', '”', '’', ' '],
        true,
    );
    t = comma_colon_before_non_digit(&t);
    if matches!(t.last(), Some(':' | ',')) {
        let c = t.pop().expect("a last char");
        t.extend([' ', c, ' ']);
    }
    t = pad_runs(&t, |_| false, |c| c == '.');
    t = pad_each(&t, |c| matches!(c, ';' | '@' | '#' | '$' | '%' | '&'));
    t = pad_each(&t, |c| ('\u{2012}'..='\u{2015}').contains(&c));
    t = final_period(&t, &[']', ')', '}', '>', '"', '\''], false);
    t = pad_each(&t, |c| matches!(c, '?' | '!'));
    t = pad_each(&t, |c| c == '*');
    // Parentheses and brackets, then double dashes.
    t = pad_each(&t, |c| {
        matches!(c, ']' | '[' | '(' | ')' | '{' | '}' | '<' | '>')
    });
    t = pad_double_dashes(&t);
    // Ending quotes, on the text with a space added at each end.
    t.insert(0, ' ');
    t.push(' ');
    t = pad_each(&t, |c| matches!(c, '»' | '”' | '’'));
    let text: String = t.into_iter().collect();
    let text = contractions(&text);
    text.split(py_isspace)
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect()
}

/// ` c ` for every char `c` that `each` accepts.
fn pad_each(t: &[char], each: impl Fn(char) -> bool) -> Vec<char> {
    let mut out = Vec::with_capacity(t.len() + 8);
    for &c in t {
        if each(c) {
            out.extend([' ', c, ' ']);
        } else {
            out.push(c);
        }
    }
    out
}

/// ` c ` for every char `single` accepts; ` run ` for every run of chars
/// `run` accepts (the backtick rule `[`]+`; with `run` `.`, the rule
/// `\.{2,}`, which pads runs of two or more only).
fn pad_runs(t: &[char], single: impl Fn(char) -> bool, run: impl Fn(char) -> bool) -> Vec<char> {
    let dots = run('.');
    let mut out = Vec::with_capacity(t.len() + 8);
    let mut i = 0;
    while i < t.len() {
        if single(t[i]) {
            out.extend([' ', t[i], ' ']);
            i += 1;
        } else if run(t[i]) {
            let start = i;
            while i < t.len() && run(t[i]) {
                i += 1;
            }
            if dots && i - start < 2 {
                out.extend_from_slice(&t[start..i]);
            } else {
                out.push(' ');
                out.extend_from_slice(&t[start..i]);
                out.push(' ');
            }
        } else {
            out.push(t[i]);
            i += 1;
        }
    }
    out
}

/// `(``)` → ` `` `, left to right.
fn pad_double_backticks(t: &[char]) -> Vec<char> {
    let mut out = Vec::with_capacity(t.len() + 8);
    let mut i = 0;
    while i < t.len() {
        if t[i] == '`' && t.get(i + 1) == Some(&'`') {
            out.extend([' ', '`', '`', ' ']);
            i += 2;
        } else {
            out.push(t[i]);
            i += 1;
        }
    }
    out
}

/// The final-period rules: `([^\.])(\.)([closers]*)\s*$`, replaced by
/// `\1 \2 \3 ` (`spaced`) or `\1 \2\3 `. The first position from the left
/// where a non-period, a period, closers and then only whitespace follow.
fn final_period(t: &[char], closers: &[char], spaced: bool) -> Vec<char> {
    // blank_from[k]: only whitespace from k to the end.
    let mut blank_from = vec![true; t.len() + 1];
    for k in (0..t.len()).rev() {
        blank_from[k] = blank_from[k + 1] && py_isspace(t[k]);
    }
    for i in 0..t.len().saturating_sub(1) {
        if t[i] == '.' || t[i + 1] != '.' {
            continue;
        }
        let mut j = i + 2;
        while j < t.len() && closers.contains(&t[j]) {
            j += 1;
        }
        if !blank_from[j] {
            continue;
        }
        let mut out = t[..=i].to_vec();
        out.push(' ');
        out.push('.');
        if spaced {
            out.push(' ');
        }
        out.extend_from_slice(&t[i + 2..j]);
        out.push(' ');
        return out;
    }
    t.to_vec()
}

/// `([:,])([^\d])` → ` \1 \2`, left to right without overlap (the char
/// after the comma is consumed, so `,,a` gives ` , ,a`).
fn comma_colon_before_non_digit(t: &[char]) -> Vec<char> {
    let mut out = Vec::with_capacity(t.len() + 8);
    let mut i = 0;
    while i < t.len() {
        if matches!(t[i], ':' | ',') && i + 1 < t.len() && !py_digit(t[i + 1]) {
            out.extend([' ', t[i], ' ', t[i + 1]]);
            i += 2;
        } else {
            out.push(t[i]);
            i += 1;
        }
    }
    out
}

/// `--` → ` -- `, left to right.
fn pad_double_dashes(t: &[char]) -> Vec<char> {
    let mut out = Vec::with_capacity(t.len() + 8);
    let mut i = 0;
    while i < t.len() {
        if t[i] == '-' && t.get(i + 1) == Some(&'-') {
            out.extend([' ', '-', '-', ' ']);
            i += 2;
        } else {
            out.push(t[i]);
            i += 1;
        }
    }
    out
}

/// nltk's `CONTRACTIONS2` without the ones that need a `'`: `cannot`,
/// `gimme`, `gonna`, `gotta`, `lemme` as whole words and `wanna` before
/// whitespace (any case) are split in two.
fn contractions(text: &str) -> String {
    const SPLITS: [(&str, &str, bool); 6] = [
        ("can", "not", false),
        ("gim", "me", false),
        ("gon", "na", false),
        ("got", "ta", false),
        ("lem", "me", false),
        ("wan", "na", true),
    ];
    let mut text: Vec<char> = text.chars().collect();
    // `\s` after the text: the padded text always ends with a space.
    text.push('\u{0}');
    for (a, b, before_space) in SPLITS {
        text = split_word(&text, a, b, before_space);
    }
    text.pop();
    text.into_iter().collect()
}

/// ` a b ` for every `ab` (ASCII case-insensitive) with no word char
/// before it and, after it, no word char (`\b`) or whitespace (`(?=\s)`).
fn split_word(t: &[char], a: &str, b: &str, before_space: bool) -> Vec<char> {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let n = a.len() + b.len();
    let same = |s: &[char], w: &[char]| {
        s.iter()
            .zip(w)
            .all(|(x, y)| x.to_ascii_lowercase() == *y && x.is_ascii())
    };
    let mut out = Vec::with_capacity(t.len() + 8);
    let mut i = 0;
    while i < t.len() {
        let fits = i + n <= t.len()
            && (i == 0 || !py_word(t[i - 1]))
            && same(&t[i..i + a.len()], &a)
            && same(&t[i + a.len()..i + n], &b)
            && match t.get(i + n) {
                Some(&c) if before_space => py_isspace(c),
                Some(&c) => !py_word(c),
                None => !before_space,
            };
        if fits {
            out.push(' ');
            out.extend_from_slice(&t[i..i + a.len()]);
            out.push(' ');
            out.extend_from_slice(&t[i + a.len()..i + n]);
            out.push(' ');
            i += n;
        } else {
            out.push(t[i]);
            i += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<String> {
        nltk_word_tokenize(s)
    }

    #[test]
    fn nltk_pads_punctuation_as_its_regexes_do() {
        assert_eq!(
            words("select count(*) from t1.a where x>=1"),
            ["select", "count", "(", "*", ")", "from", "t1.a", "where", "x", ">", "=1"]
        );
        // A comma before a digit stays inside the word; before anything
        // else it is split off, and the char after it is consumed.
        assert_eq!(words("in (1,2)"), ["in", "(", "1,2", ")"]);
        assert_eq!(words("a,b"), ["a", ",", "b"]);
        assert_eq!(words("a,,b"), ["a", ",", ",b"]);
        assert_eq!(words("a ,"), ["a", ","]);
        assert_eq!(words("a;b!c?d"), ["a", ";", "b", "!", "c", "?", "d"]);
        assert_eq!(words("x--y"), ["x", "--", "y"]);
        assert_eq!(words("a...b"), ["a", "...", "b"]);
        assert_eq!(words("`a`"), ["`", "a", "`"]);
        assert_eq!(words("``a``"), ["``", "a", "``"]);
        assert_eq!(words("a = -1.5"), ["a", "=", "-1.5"]);
    }

    #[test]
    fn nltk_splits_a_final_period() {
        assert_eq!(words("limit 1."), ["limit", "1", "."]);
        assert_eq!(words("t1.a"), ["t1.a"]);
        assert_eq!(words("x a.) "), ["x", "a", ".", ")"]);
    }

    #[test]
    fn nltk_splits_its_contractions() {
        assert_eq!(words("cannot"), ["can", "not"]);
        assert_eq!(words("CANNOT x"), ["CAN", "NOT", "x"]);
        assert_eq!(words("wanna"), ["wan", "na"]);
        assert_eq!(words("cannot_x gonnax"), ["cannot_x", "gonnax"]);
    }

    #[test]
    fn literals_keep_their_case_and_quotes() {
        let toks =
            spider_tokenize("SELECT a FROM t WHERE b = 'Hello World' AND c != \"X\"").unwrap();
        assert_eq!(
            toks,
            [
                "select",
                "a",
                "from",
                "t",
                "where",
                "b",
                "=",
                "\"Hello World\"",
                "and",
                "c",
                "!=",
                "\"X\""
            ]
        );
        assert!(spider_tokenize("SELECT 'a").is_err());
        // A literal glued to text is not put back.
        let toks = spider_tokenize("WHERE b='x'").unwrap();
        assert_eq!(toks, ["where", "b=__val_8_10__"]);
    }

    #[test]
    fn comparison_signs_are_glued_to_equals() {
        assert_eq!(
            spider_tokenize("a >= 1 AND b < = 2 AND c !=3").unwrap(),
            ["a", ">=", "1", "and", "b", "<=", "2", "and", "c", "!", "=3"]
        );
        // A `=` first looks at the last token, as `toks[-1]` does.
        assert_eq!(
            glue_comparisons(vec!["=".into(), "a".into(), "<".into()]),
            ["=", "a", "<=", "a", "<"]
        );
    }
}
