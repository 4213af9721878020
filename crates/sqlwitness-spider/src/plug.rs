//! `--plug_value` of the Spider test-suite evaluator (`parse.py`,
//! `get_all_preds_for_execution`): the prediction's values become slots,
//! and every way of filling the slots with the gold's values is a
//! prediction to execute.
//!
//! Both queries are split into sqlparse's tokens (emulated here: only the
//! token boundaries, whitespace and string literals matter), rejoined with
//! single spaces; string literals, then tokens that look like decimal or
//! integer numbers are values; the other tokens are lowercased. sqlparse's
//! keyword uppercasing is left out (every token it changes is lowercased
//! afterwards, and it never touches a literal), but not its statement
//! splitting at the keyword `GO`.

use std::collections::BTreeSet;

/// The evaluator's slot token (`VALUE_NUM_SYMBOL`, lowercased).
const SLOT: &str = "valuerare";

/// Python's `str.isspace`.
fn py_isspace(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// Python's `\w`.
fn word(c: char) -> bool {
    c == '_' || c.is_alphanumeric()
}

/// sqlparse's `[_A-ZÀ-Ü]` under IGNORECASE.
fn latin_letter(c: char) -> bool {
    c == '_'
        || c.is_ascii_alphabetic()
        || ('\u{c0}'..='\u{dc}').contains(&c)
        || (('\u{e0}'..='\u{fc}').contains(&c) && c != '\u{f7}')
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Whitespace,
    /// `--…` or `# …`.
    Comment,
    /// `'…'` (`String.Single`) or `"…"` (`String.Symbol`): a value.
    Literal,
    /// The keyword `GO` (or `GO 2`), which ends a statement.
    Go,
    Other,
}

/// The end of a quoted token opened at `s[i]` by `q`, as the regex
/// `q(qq|\\q|[^q])*q` matches it (without the `\\q` alternative unless
/// `escapes`; greedy, backtracking): an iterative search, each position
/// tried once.
fn quoted_end(s: &[char], i: usize, q: char, escapes: bool) -> Option<usize> {
    let mut failed = std::collections::HashSet::new();
    // (position, next alternative to try)
    let mut stack = vec![(i + 1, 0u8)];
    while let Some((p, alt)) = stack.pop() {
        if alt == 0 && failed.contains(&p) {
            continue;
        }
        let next = match alt {
            0 if s.get(p) == Some(&q) && s.get(p + 1) == Some(&q) => Some(p + 2),
            1 if escapes && s.get(p) == Some(&'\\') && s.get(p + 1) == Some(&q) => Some(p + 2),
            2 if s.get(p).is_some_and(|c| *c != q) => Some(p + 1),
            3 if s.get(p) == Some(&q) => return Some(p + 1),
            3 => {
                failed.insert(p);
                continue;
            }
            _ => None,
        };
        stack.push((p, alt + 1));
        if let Some(n) = next {
            stack.push((n, 0));
        }
    }
    None
}

/// The length of the number token at `s[i..]` (hexadecimal, float with
/// exponent, float, integer, each with an optional `-`), or 0.
fn number_len(s: &[char], i: usize) -> usize {
    let digits = |mut j: usize| {
        while s.get(j).is_some_and(|c| c.is_ascii_digit()) {
            j += 1;
        }
        j
    };
    let start = if s.get(i) == Some(&'-') { i + 1 } else { i };
    // -?0x[\dA-F]+
    if s.get(start) == Some(&'0') && matches!(s.get(start + 1), Some('x' | 'X')) {
        let mut j = start + 2;
        while s.get(j).is_some_and(|c| c.is_ascii_hexdigit()) {
            j += 1;
        }
        if j > start + 2 {
            return j - i;
        }
    }
    let int_end = digits(start);
    // -?\d+(\.\d+)?E-?\d+
    if int_end > start {
        let mut j = int_end;
        if s.get(j) == Some(&'.') && digits(j + 1) > j + 1 {
            j = digits(j + 1);
        }
        if matches!(s.get(j), Some('e' | 'E')) {
            let k = if s.get(j + 1) == Some(&'-') {
                j + 2
            } else {
                j + 1
            };
            if digits(k) > k {
                return digits(k) - i;
            }
        }
    }
    let not_letter_after = |j: usize| !s.get(j).is_some_and(|c| latin_letter(*c));
    if s.get(i).is_some_and(|c| latin_letter(*c)) {
        return 0;
    }
    // (\d+(\.\d*)|\.\d+) then no letter; backtracking shortens the digits
    // after the dot.
    if int_end > start && s.get(int_end) == Some(&'.') {
        let mut end = digits(int_end + 1);
        while end > int_end {
            if not_letter_after(end) {
                return end - i;
            }
            end -= 1;
        }
    }
    if int_end == start && s.get(start) == Some(&'.') {
        let mut end = digits(start + 1);
        while end > start + 1 {
            if not_letter_after(end) {
                return end - i;
            }
            end -= 1;
        }
    }
    // \d+ then no letter, shortened as needed.
    let mut end = int_end;
    while end > start {
        if not_letter_after(end) {
            return end - i;
        }
        end -= 1;
    }
    0
}

/// The length of a token of the operator and punctuation rules at `s[i]`.
fn symbol_len(s: &[char], i: usize) -> usize {
    let at = |k: usize| s.get(i + k).copied();
    let run = |set: &str| {
        let mut j = i;
        while s.get(j).is_some_and(|c| set.contains(*c)) {
            j += 1;
        }
        j - i
    };
    match (at(0), at(1), at(2)) {
        (Some(';' | ':' | '(' | ')' | '[' | ']' | ',' | '.'), _, _) => 1,
        (Some('-'), Some('>'), Some('>')) | (Some('#'), Some('>'), Some('>')) => 3,
        (Some('-' | '#' | '@'), Some('>'), _) | (Some('<'), Some('@'), _) => 2,
        (Some('?'), Some('|'), _) | (Some('#'), Some('-'), _) => 2,
        (Some('?' | '-'), _, _) => 1,
        (Some(c), _, _) if "<>=~!".contains(c) => run("<>=~!"),
        (Some(c), _, _) if "+/@#%^&|".contains(c) => run("+/@#%^&|-"),
        _ => 0,
    }
}

/// `(kind, length)` of the sqlparse token at `s[i]`; `before` as for
/// [`word_token`].
fn token_at(s: &[char], i: usize, before: Option<&str>) -> (Kind, usize) {
    let c = s[i];
    let at = |k: usize| s.get(i + k).copied();
    if (c == '-' && at(1) == Some('-')) || (c == '#' && at(1) == Some(' ')) {
        let end = (i..s.len()).find(|&j| matches!(s[j], '\n' | '\r'));
        return (Kind::Comment, end.map_or(s.len(), |e| e + 1) - i);
    }
    if matches!(c, '\n' | '\r') {
        let n = if c == '\r' && at(1) == Some('\n') {
            2
        } else {
            1
        };
        return (Kind::Other, n);
    }
    if py_isspace(c) {
        return (Kind::Whitespace, 1);
    }
    if (c == ':' && matches!(at(1), Some('=' | ':'))) || c == '*' {
        return (Kind::Other, if c == '*' { 1 } else { 2 });
    }
    if c == '`' || c == '´' {
        if let Some(e) = quoted_end(s, i, c, false) {
            return (Kind::Other, e - i);
        }
    }
    if let Some(n) = placeholder_len(s, i) {
        return (Kind::Other, n);
    }
    let n = number_len(s, i);
    if n > 0 {
        return (Kind::Other, n);
    }
    if c == '\'' || c == '"' {
        if let Some(e) = quoted_end(s, i, c, true) {
            return (Kind::Literal, e - i);
        }
    }
    if c == '[' && !(i > 0 && (word(s[i - 1]) || matches!(s[i - 1], ']' | ')'))) {
        if let Some(e) = (i + 1..s.len()).find(|&j| matches!(s[j], ']' | '[')) {
            if s[e] == ']' && e > i + 1 {
                return (Kind::Other, e + 1 - i);
            }
        }
    }
    if word(c) {
        return word_token(s, i, before);
    }
    let n = symbol_len(s, i);
    (Kind::Other, n.max(1))
}

/// Words that end a keyword rule of sqlparse's matched before its word
/// rule (`\\w[$#\\w]*`), with the words that must come before them: such a
/// word stops at its last letter where the word rule would go on through
/// `$` and `#`.
const KEYWORD_ENDS: [(&str, &[&str]); 22] = [
    ("CASE", &[]),
    ("IN", &[]),
    ("VALUES", &[]),
    ("USING", &[]),
    ("FROM", &[]),
    ("AS", &[]),
    ("JOIN", &[]),
    ("END", &[]),
    ("ASC", &[]),
    ("DESC", &[]),
    ("LIKE", &[]),
    ("ILIKE", &[]),
    ("RLIKE", &[]),
    ("REGEXP", &[]),
    ("CREATE", &[]),
    ("BY", &["GROUP", "ORDER"]),
    ("ALL", &["UNION"]),
    ("NULL", &["NOT"]),
    ("FIRST", &["NULLS"]),
    ("LAST", &["NULLS"]),
    ("KEY", &["PRIMARY"]),
    ("PRECISION", &["DOUBLE"]),
];

/// `(AT|WITH')\\s+TIME\\s+ZONE\\s+'[^']+'` at `s[i]`: its length.
fn time_zone_len(s: &[char], i: usize) -> Option<usize> {
    let upper = |from: usize, n: usize| -> Option<String> {
        s.get(from..from + n)
            .map(|w| w.iter().collect::<String>().to_ascii_uppercase())
    };
    let mut j = match upper(i, 2).as_deref() {
        Some("AT") => i + 2,
        _ if upper(i, 5).as_deref() == Some("WITH'") => i + 5,
        _ => return None,
    };
    for w in ["TIME", "ZONE"] {
        let start = j;
        while s.get(j).is_some_and(|c| py_isspace(*c)) {
            j += 1;
        }
        if j == start || upper(j, w.len()).as_deref() != Some(w) {
            return None;
        }
        j += w.len();
    }
    let start = j;
    while s.get(j).is_some_and(|c| py_isspace(*c)) {
        j += 1;
    }
    if j == start || s.get(j) != Some(&'\'') {
        return None;
    }
    let close = (j + 1..s.len()).find(|&k| s[k] == '\'')?;
    (close > j + 1).then_some(close + 1 - i)
}

/// A word token at `s[i]`: `\\w[$#\\w]*`, except where an earlier rule
/// stops at the end of the letters — after a `.` (`(?<=\\.)[A-ZÀ-Ü]\\w*`),
/// for the [`KEYWORD_ENDS`] (`before`: the word token before the whitespace
/// before `s[i]`, uppercased, when sqlparse tried its keyword rules there)
/// — and `GO`, a keyword that ends a statement (`GO 5` too), unless a name
/// (before `(`, after or before a `.`).
fn word_token(s: &[char], i: usize, before: Option<&str>) -> (Kind, usize) {
    let mut j = i;
    while s.get(j).is_some_and(|c| word(*c)) {
        j += 1;
    }
    let letters: String = s[i..j].iter().collect::<String>().to_ascii_uppercase();
    let after_dot = i > 0 && s[i - 1] == '.' && latin_letter(s[i]) && s[i] != '_';
    let mut k = j;
    while s.get(k).is_some_and(|c| py_isspace(*c)) {
        k += 1;
    }
    let name = s.get(j) == Some(&'(')
        || (s.get(k) == Some(&'.') && !s.get(k + 1).is_some_and(|c| c.is_ascii_digit()));
    if letters == "GO" && !after_dot && !name {
        // GO(\s\d+)\b
        if s.get(j).is_some_and(|c| py_isspace(*c))
            && s.get(j + 1).is_some_and(|c| c.is_ascii_digit())
        {
            let mut e = j + 1;
            while s.get(e).is_some_and(|c| c.is_ascii_digit()) {
                e += 1;
            }
            if !s.get(e).is_some_and(|c| word(*c)) {
                return (Kind::Go, e - i);
            }
        }
        if !s.get(j).is_some_and(|c| matches!(c, '$' | '#')) {
            return (Kind::Go, j - i);
        }
    }
    if let Some(n) = time_zone_len(s, i).filter(|_| !after_dot && !name) {
        return (Kind::Other, n);
    }
    let before_word = before;
    let keyword_end = KEYWORD_ENDS.iter().any(|(w, before)| {
        *w == letters && (before.is_empty() || before.iter().any(|b| Some(*b) == before_word))
    });
    if after_dot || keyword_end || name {
        return (Kind::Other, j - i);
    }
    while s.get(j).is_some_and(|c| word(*c) || matches!(c, '$' | '#')) {
        j += 1;
    }
    (Kind::Other, j - i)
}

/// Placeholders, commands and `@name`s: `?`, `%s`, `%(name)s`,
/// `$name`/`:name`/`?name` (not after a word char), `\name`, `@name`,
/// `#name`, `##name`.
fn placeholder_len(s: &[char], i: usize) -> Option<usize> {
    let c = s[i];
    let word_run = |from: usize| {
        let mut j = from;
        while s.get(j).is_some_and(|c| word(*c)) {
            j += 1;
        }
        j - from
    };
    if c == '?' {
        return Some(1);
    }
    if c == '%' {
        if matches!(s.get(i + 1), Some('s' | 'S')) {
            return Some(2);
        }
        if s.get(i + 1) == Some(&'(') {
            let n = word_run(i + 2);
            if n > 0
                && s.get(i + 2 + n) == Some(&')')
                && matches!(s.get(i + 3 + n), Some('s' | 'S'))
            {
                return Some(n + 4);
            }
        }
    }
    let after_word = i > 0 && word(s[i - 1]);
    if matches!(c, '$' | ':') && !after_word && word_run(i + 1) > 0 {
        return Some(1 + word_run(i + 1));
    }
    if c == '\\' && word_run(i + 1) > 0 {
        return Some(1 + word_run(i + 1));
    }
    let sigil = if c == '#' && s.get(i + 1) == Some(&'#') {
        2
    } else {
        1
    };
    if matches!(c, '@' | '#')
        && s.get(i + sigil)
            .is_some_and(|c| latin_letter(*c) && *c != '_')
        && word_run(i + sigil + 1) > 0
    {
        return Some(sigil + 1 + word_run(i + sigil + 1));
    }
    None
}

/// sqlparse's tokens of `text`: `(kind, text)`.
fn sqlparse_tokens(text: &str) -> Vec<(Kind, String)> {
    let s: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    // The last word token where keyword rules were tried, and whether
    // whitespace (and only whitespace) followed it.
    let mut word: Option<String> = None;
    let mut spaced = false;
    while i < s.len() {
        let before = word.as_deref().filter(|_| spaced);
        let (kind, n) = token_at(&s, i, before);
        let text: String = s[i..i + n].iter().collect();
        if kind == Kind::Whitespace {
            spaced = word.is_some();
        } else {
            let plain = s[i].is_alphanumeric() || s[i] == '_';
            let after_dot = i > 0 && s[i - 1] == '.';
            word = (plain && !after_dot).then(|| text.to_ascii_uppercase());
            spaced = false;
        }
        out.push((kind, text));
        i += n;
    }
    out
}

/// sqlparse's statements: each ends after a `GO` keyword (written `GO`,
/// unless `any_case`) and the whitespace and comments after it.
fn statements(tokens: Vec<(Kind, String)>, any_case: bool) -> Vec<Vec<(Kind, String)>> {
    let mut out: Vec<Vec<(Kind, String)>> = vec![Vec::new()];
    let mut ended = false;
    for t in tokens {
        if ended && !matches!(t.0, Kind::Whitespace | Kind::Comment) {
            out.push(Vec::new());
            ended = false;
        }
        let go = t.0 == Kind::Go && (any_case || t.1.starts_with("GO"));
        out.last_mut().expect("a statement").push(t);
        ended |= go;
    }
    out
}

/// `reformat_query`: no `;`, no tab, the first statement's tokens but
/// whitespace joined by single spaces.
fn reformat(query: &str) -> String {
    let q = query.trim_matches(py_isspace).replace([';', '\t'], "");
    let first = statements(sqlparse_tokens(&q), false).swap_remove(0);
    let joined = first
        .into_iter()
        .filter(|(k, _)| *k != Kind::Whitespace)
        .map(|(_, t)| t)
        .collect::<Vec<_>>()
        .join(" ");
    ["t1.*", "t2.*", "t3.*", "T1.*", "T2.*", "T3.*"]
        .iter()
        .fold(joined, |q, t| q.replace(t, "*"))
}

/// `sqlparse.format(sql, keyword_case='upper')` but for the case: each
/// statement with its trailing whitespace stripped.
fn format(sql: &str) -> String {
    statements(sqlparse_tokens(sql), true)
        .into_iter()
        .map(|st| {
            let text: String = st.into_iter().map(|(_, t)| t).collect();
            text.trim_end_matches(py_isspace).to_string()
        })
        .collect()
}

/// `re.sub(r"(T\d+\.)\s", r"\1", sql)`.
fn glue_aliases(sql: &str) -> String {
    let s: Vec<char> = sql.chars().collect();
    let mut out = String::with_capacity(sql.len());
    let mut i = 0;
    while i < s.len() {
        if s[i] == 'T' {
            let mut j = i + 1;
            while s.get(j).is_some_and(|c| c.is_ascii_digit()) {
                j += 1;
            }
            if j > i + 1 && s.get(j) == Some(&'.') && s.get(j + 1).is_some_and(|c| py_isspace(*c)) {
                out.extend(&s[i..=j]);
                i = j + 2;
                continue;
            }
        }
        out.push(s[i]);
        i += 1;
    }
    out
}

/// `re.findall("[-+]?\d*\.\d+", text)`.
fn decimals(text: &str) -> Vec<String> {
    let s: Vec<char> = text.chars().collect();
    let mut found = Vec::new();
    let mut i = 0;
    while i < s.len() {
        let mut j = i;
        if matches!(s[j], '-' | '+') {
            j += 1;
        }
        let int_start = j;
        while s.get(j).is_some_and(|c| c.is_ascii_digit()) {
            j += 1;
        }
        // \d*\.\d+ backtracks into the integer part when no digit follows
        // the last dot; a dot with digits after it is needed.
        let mut matched = None;
        let mut k = j;
        while k >= int_start {
            if s.get(k) == Some(&'.') && s.get(k + 1).is_some_and(|c| c.is_ascii_digit()) {
                let mut e = k + 1;
                while s.get(e).is_some_and(|c| c.is_ascii_digit()) {
                    e += 1;
                }
                matched = Some(e);
                break;
            }
            if k == int_start {
                break;
            }
            k -= 1;
        }
        match matched {
            Some(e) => {
                found.push(s[i..e].iter().collect());
                i = e;
            }
            None => i += 1,
        }
    }
    found
}

/// `[i.strip() for i in re.findall("[^tT]\d+", text)]`.
fn integers(text: &str) -> Vec<String> {
    let s: Vec<char> = text.chars().collect();
    let mut found = Vec::new();
    let mut i = 0;
    while i + 1 < s.len() {
        if !matches!(s[i], 't' | 'T') && s[i + 1].is_ascii_digit() {
            let mut e = i + 1;
            while s.get(e).is_some_and(|c| c.is_ascii_digit()) {
                e += 1;
            }
            let m: String = s[i..e].iter().collect();
            found.push(m.trim_matches(py_isspace).to_string());
            i = e;
        } else {
            i += 1;
        }
    }
    found
}

/// `strip_query`: the query's tokens with values as slots, and its values.
fn strip_query(query: &str) -> (Vec<String>, Vec<String>) {
    let mut values: Vec<String> = Vec::new();
    let mut query = query.to_string();
    let first = statements(sqlparse_tokens(&query), true).swap_remove(0);
    let literals: Vec<String> = first
        .into_iter()
        .filter(|(k, _)| *k == Kind::Literal)
        .map(|(_, t)| t)
        .collect();
    for v in literals {
        query = query.replace(v.trim_matches(py_isspace), "VALUERARE");
        values.push(v);
    }
    let mut toks: Vec<String> = query
        .split(py_isspace)
        .filter(|t| !t.is_empty())
        .map(str::to_string)
        .collect();
    let floats: BTreeSet<String> = decimals(&query).into_iter().collect();
    for t in &mut toks {
        if floats.contains(t) {
            values.push(std::mem::replace(t, "VALUERARE".into()));
        }
    }
    let ints: BTreeSet<String> = integers(&toks.join(" ")).into_iter().collect();
    for t in &mut toks {
        if ints.contains(t) {
            values.push(std::mem::replace(t, "VALUERARE".into()));
        }
    }
    let mut words = Vec::new();
    for t in toks {
        if t.contains('.') && has_alias_dot(&t) {
            let spaced = t.replace('.', " . ");
            words.extend(
                spaced
                    .split(py_isspace)
                    .filter(|w| !w.is_empty())
                    .map(str::to_lowercase),
            );
        } else {
            words.push(t.to_lowercase());
        }
    }
    (words, values)
}

/// `re.findall("[Tt]\d+\.", tok)` finds something.
fn has_alias_dot(tok: &str) -> bool {
    let s: Vec<char> = tok.chars().collect();
    (0..s.len()).any(|i| {
        matches!(s[i], 't' | 'T') && {
            let mut j = i + 1;
            while s.get(j).is_some_and(|c| c.is_ascii_digit()) {
                j += 1;
            }
            j > i + 1 && s.get(j) == Some(&'.')
        }
    })
}

/// `extract_query_values`: the tokens with slots, and the set of values.
fn extract_query_values(sql: &str) -> (Vec<String>, BTreeSet<String>) {
    let (words, values) = strip_query(&glue_aliases(&format(&reformat(sql))));
    (words, values.into_iter().collect())
}

/// What `get_all_preds_for_execution(gold, pred)` yields: every filling of
/// the prediction's slots with the gold's values (the gold's values in
/// sorted order; the evaluator's order is a Python set's, and only
/// whether one passes counts), joined by single spaces. `None` when there
/// would be more than `limit`.
pub fn spider_plug_values(gold: &str, pred: &str, limit: usize) -> Option<Vec<String>> {
    let (_, gold_values) = extract_query_values(gold);
    let (words, _) = extract_query_values(pred);
    let gold_values: Vec<&String> = gold_values.iter().collect();
    let slots: Vec<usize> = (0..words.len()).filter(|&i| words[i] == SLOT).collect();
    let total = (0..slots.len()).try_fold(1usize, |n, _| n.checked_mul(gold_values.len()))?;
    if total > limit {
        return None;
    }
    let mut out = Vec::with_capacity(total);
    for k in 0..total {
        let mut filled = words.clone();
        let mut rest = k;
        for &at in slots.iter().rev() {
            filled[at] = gold_values[rest % gold_values.len()].clone();
            rest /= gold_values.len();
        }
        out.push(filled.join(" "));
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(sql: &str) -> (Vec<String>, Vec<String>) {
        let (w, v) = extract_query_values(sql);
        (w, v.into_iter().collect())
    }

    #[test]
    fn values_become_slots_as_parse_py_finds_them() {
        let (w, v) = words(
            "SELECT T1.name FROM singer AS T1 WHERE T1.age>30 AND country='Spain' ORDER  BY x LIMIT 3",
        );
        assert_eq!(
            w.join(" "),
            "select t1 . name from singer as t1 where t1 . age > valuerare and country = valuerare order by x limit valuerare"
        );
        assert_eq!(v, ["'Spain'", "3", "30"]);
        let (w, v) = words("SELECT count(*) FROM t WHERE a = -1.5 OR b = \"x y\"");
        assert_eq!(
            w.join(" "),
            "select count ( * ) from t where a = valuerare or b = valuerare"
        );
        assert_eq!(v, ["\"x y\"", "-1.5"]);
    }

    #[test]
    fn every_filling_of_the_slots() {
        let plugged = spider_plug_values(
            "SELECT a FROM t WHERE b = 'x' AND c > 2",
            "SELECT a FROM t WHERE b = 'y'",
            100,
        )
        .unwrap();
        assert_eq!(
            plugged,
            [
                "select a from t where b = 'x'",
                "select a from t where b = 2"
            ]
        );
        // No slot: one filling, the lowercased tokens.
        assert_eq!(
            spider_plug_values("SELECT 1", "SELECT A FROM T", 100).unwrap(),
            ["select a from t"]
        );
        // Slots but no gold value: none.
        assert!(
            spider_plug_values("SELECT a FROM t", "SELECT a FROM t WHERE b = 1", 100)
                .unwrap()
                .is_empty()
        );
        assert!(spider_plug_values("SELECT 1, 2, 3", "SELECT 4, 5, 6, 7, 8", 100).is_none());
    }

    #[test]
    fn quoted_tokens_backtrack_as_the_regex() {
        let s: Vec<char> = r"'a\'b' x".chars().collect();
        assert_eq!(quoted_end(&s, 0, '\'', true), Some(6));
        let s: Vec<char> = r"'a\' x".chars().collect();
        assert_eq!(quoted_end(&s, 0, '\'', true), Some(4));
        let s: Vec<char> = "'it''s'".chars().collect();
        assert_eq!(quoted_end(&s, 0, '\'', true), Some(7));
        let s: Vec<char> = "'open".chars().collect();
        assert_eq!(quoted_end(&s, 0, '\'', true), None);
    }

    #[test]
    fn numbers_and_words_split_as_sqlparse_does() {
        let toks = |s: &str| -> Vec<String> {
            sqlparse_tokens(s)
                .into_iter()
                .filter(|(k, _)| *k != Kind::Whitespace)
                .map(|(_, t)| t)
                .collect()
        };
        assert_eq!(toks("age-1>=2.5e3"), ["age", "-1", ">=", "2.5e3"]);
        assert_eq!(toks("1abc x$y 3."), ["1abc", "x$y", "3."]);
        assert_eq!(toks("a--b 'c'"), ["a", "--b 'c'"]);
        assert_eq!(toks("[a b] x[1]"), ["[a b]", "x", "[", "1", "]"]);
    }
}
