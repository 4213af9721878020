//! The repository reads as a product. Every tracked text file is checked
//! for what belongs to the machine or the work that produced it rather than
//! to the product, and the documentation for references that lead nowhere:
//!
//! * machine paths (`/work/`, `/root/`, `/home/`, `/Users/`, `/tmp/wt…`,
//!   `/tmp/h-…`): a reader's machine has none of them;
//! * issue numbers (`issue 12`, `#12`) and notes about work sessions
//!   (`this session`, `work session`, …): the tracker is not the product;
//! * papers cited by a local number (`seed 001`): papers are cited by name
//!   (`docs/references.md`);
//! * repository paths in docs and comments (`crates/…`, `scripts/…`,
//!   `tests/…`, `docs/…`, `dialects/…`, `examples/…`, `data/…`) that no
//!   tracked file matches;
//! * the crate map of `docs/ARCHITECTURE.md` against the crates'
//!   `Cargo.toml` dependencies.
//!
//! A failure names every `file:line`. What must stay is allow-listed below
//! with its reason; an allow-list entry that no longer matches fails too.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

/// `(file, text on the line, reason)`: lines that may break a rule. An
/// empty text allows the whole file.
const ALLOWED: &[(&str, &str, &str)] = &[(
    "crates/sqlwitness-cli/tests/repository.rs",
    "",
    "the rules themselves name what they look for",
)];

/// Substrings that are machine paths.
const MACHINE_PATHS: &[&str] = &[
    "/work/", "/root/", "/home/", "/Users/", "/tmp/wt", "/tmp/h-",
];

/// Lower-case phrases that are notes about how the work went.
const WORK_NOTES: &[&str] = &[
    "this session",
    "work session",
    "previous session",
    "session start",
    "session notes",
];

/// Top-level folders whose paths the documentation cites.
const CITED_ROOTS: &[&str] = &[
    "crates/",
    "scripts/",
    "tests/",
    "docs/",
    "dialects/",
    "examples/",
    "data/",
];

fn repo() -> std::path::PathBuf {
    sqlwitness_testkit::repo_root()
}

/// The tracked files (`git ls-files`); outside a git checkout, `None` after
/// the testkit's `SKIPPED` (a failure under `SQLWITNESS_REQUIRE_ENGINES=1`).
fn tracked() -> Option<Vec<String>> {
    let files = git_ls_files();
    if files.is_none() {
        sqlwitness_testkit::missing("a git checkout (git ls-files)");
    }
    files
}

fn git_ls_files() -> Option<Vec<String>> {
    let out = Command::new("git")
        .arg("ls-files")
        .arg("-z")
        .current_dir(repo())
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    let text = String::from_utf8(out.stdout).ok()?;
    Some(
        text.split('\0')
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .collect(),
    )
}

/// A tracked file's text, or `None` for a binary file (a NUL byte in its
/// first 8 KiB, or not UTF-8) or one deleted from the working tree.
fn text_of(path: &str) -> Option<String> {
    let bytes = std::fs::read(repo().join(path)).ok()?;
    if bytes[..bytes.len().min(8192)].contains(&0) {
        return None;
    }
    String::from_utf8(bytes).ok()
}

/// The rule a line breaks, if any.
fn broken_rule(line: &str) -> Option<&'static str> {
    if MACHINE_PATHS.iter().any(|p| line.contains(p)) {
        return Some("machine path");
    }
    let lower = line.to_lowercase();
    if mentions_issue(&lower) {
        return Some("issue number");
    }
    if WORK_NOTES.iter().any(|p| lower.contains(p)) {
        return Some("note about a work session");
    }
    if cites_paper_by_number(&lower) {
        return Some("paper cited by number (cite it by name: docs/references.md)");
    }
    None
}

/// `issue 12`, `issues 3`, `issue #12`, `issue12`, or `#12` standing alone
/// (after a space, a bracket or at the start, 1–4 digits, not a hex colour
/// like `#795548`).
fn mentions_issue(lower: &str) -> bool {
    let b = lower.as_bytes();
    for (i, _) in lower.match_indices("issue") {
        let mut j = i + "issue".len();
        if i > 0 && b[i - 1].is_ascii_alphanumeric() {
            continue;
        }
        for skip in [b's', b' ', b'#'] {
            if b.get(j) == Some(&skip) {
                j += 1;
            }
        }
        if b.get(j).is_some_and(u8::is_ascii_digit) {
            return true;
        }
    }
    for (i, _) in lower.match_indices('#') {
        if i > 0 && !matches!(b[i - 1], b' ' | b'\t' | b'(' | b'[') {
            continue;
        }
        let digits = b[i + 1..].iter().take_while(|c| c.is_ascii_digit()).count();
        let after = b.get(i + 1 + digits);
        if (1..=4).contains(&digits) && !after.is_some_and(|c| c.is_ascii_alphanumeric()) {
            return true;
        }
    }
    false
}

/// `seed 001`, `seeds 000–004`, `seed-002`, `seed_003`, `seed004`.
fn cites_paper_by_number(lower: &str) -> bool {
    lower.match_indices("seed").any(|(i, _)| {
        let rest = &lower[i + "seed".len()..];
        let rest = rest.strip_prefix('s').unwrap_or(rest);
        let rest = rest.trim_start_matches([' ', '-', '_']);
        rest.starts_with("00") && rest[2..].starts_with(|c: char| c.is_ascii_digit())
    })
}

fn allowed(path: &str, line: &str, used: &mut BTreeSet<usize>) -> bool {
    for (k, (file, text, _reason)) in ALLOWED.iter().enumerate() {
        if *file == path && line.contains(text) {
            used.insert(k);
            return true;
        }
    }
    false
}

#[test]
fn no_machine_paths_issue_numbers_session_notes_or_papers_by_number() {
    let Some(files) = tracked() else { return };
    let mut used = BTreeSet::new();
    let mut found = Vec::new();
    let mut checked = 0;
    for path in &files {
        let Some(text) = text_of(path) else { continue };
        checked += 1;
        for (n, line) in text.lines().enumerate() {
            if let Some(rule) = broken_rule(line) {
                if !allowed(path, line, &mut used) {
                    let excerpt: String = line.trim().chars().take(120).collect();
                    found.push(format!("{path}:{}: {rule}: {excerpt}", n + 1));
                }
            }
        }
    }
    assert!(checked > 100, "only {checked} text files tracked");
    assert!(
        found.is_empty(),
        "{} line(s) break the repository's rules:\n{}",
        found.len(),
        found.join("\n")
    );
    let stale: Vec<_> = ALLOWED
        .iter()
        .enumerate()
        .filter(|(k, _)| !used.contains(k))
        .map(|(_, (file, text, _))| format!("{file}: {text:?}"))
        .collect();
    assert!(
        stale.is_empty(),
        "allow-list entries that match nothing: {stale:?}"
    );
}

#[test]
fn the_rules_catch_what_they_are_for() {
    for line in [
        "see /work/main/README.md",
        "cloned to /tmp/wt14-fresh",
        "fixed for issue 12",
        "(issue #3)",
        "as in #12.",
        "Measured in this session",
        "the tie-inclusive rewrite of seed 001 §6.1",
        "Seeds 000–004",
    ] {
        assert!(broken_rule(line).is_some(), "{line}");
    }
    for line in [
        "color:#795548",
        "report.html#q16 opens question 16",
        "hunt #{i} of {n}",
        "#[derive(Debug)]",
        "pinned for each session: time zone, float digits",
        "Pourreza & Rafiei §6.1",
        "--seed 42: the random seed",
        "tissue 3",
    ] {
        assert_eq!(broken_rule(line), None, "{line}");
    }
}

/// A repository path cited in a doc or a comment (`crates/…/x.rs`,
/// `dialects/*.yaml`, `database/<db_id>/…` under `examples/`) matches a
/// tracked file or folder: from the repository root, or from the crate the
/// citing file is in.
#[test]
fn cited_repository_paths_exist() {
    let Some(files) = tracked() else { return };
    let mut dangling = Vec::new();
    for path in &files {
        if path.starts_with("examples/spider-dev/") {
            continue;
        }
        let Some(text) = text_of(path) else { continue };
        let crate_dir = path
            .strip_prefix("crates/")
            .and_then(|rest| rest.split('/').next())
            .map(|name| format!("crates/{name}/"));
        for (n, line) in text.lines().enumerate() {
            for cited in cited_paths(line) {
                let found = expand_braces(&cited).iter().all(|p| {
                    matches_tracked(&files, p)
                        || crate_dir
                            .as_ref()
                            .is_some_and(|dir| matches_tracked(&files, &format!("{dir}{p}")))
                });
                if !found {
                    dangling.push(format!("{path}:{}: {cited}", n + 1));
                }
            }
        }
    }
    assert!(
        dangling.is_empty(),
        "paths cited that no tracked file matches:\n{}",
        dangling.join("\n")
    );
}

/// Repository paths in `line`: a token that starts with one of
/// [`CITED_ROOTS`] (not inside a longer path or a URL) and runs over path
/// characters, placeholders (`<db>`), globs and braces.
fn cited_paths(line: &str) -> Vec<String> {
    let b = line.as_bytes();
    let mut out = Vec::new();
    for root in CITED_ROOTS {
        for (i, _) in line.match_indices(root) {
            if i > 0
                && (b[i - 1].is_ascii_alphanumeric()
                    || matches!(b[i - 1], b'/' | b'.' | b'_' | b'-'))
            {
                continue;
            }
            let len = line[i..]
                .find(|c: char| !(c.is_ascii_alphanumeric() || "/._-*<>{},".contains(c)))
                .unwrap_or(line.len() - i);
            let token = line[i..i + len].trim_end_matches(['.', ',', '/']);
            // `tests/` alone, or a folder named in prose, is not a path.
            if token.len() > root.len() {
                out.push(token.to_string());
            }
        }
    }
    out
}

/// `a/{b,c}.rs` → `a/b.rs`, `a/c.rs`; a brace without a comma is a format
/// placeholder (`crates/{name}`), read as a wildcard.
fn expand_braces(p: &str) -> Vec<String> {
    let (Some(open), Some(close)) = (p.find('{'), p.find('}')) else {
        return vec![p.to_string()];
    };
    if close < open {
        return vec![p.to_string()];
    }
    if !p[open..close].contains(',') {
        return expand_braces(&format!("{}*{}", &p[..open], &p[close + 1..]));
    }
    p[open + 1..close]
        .split(',')
        .flat_map(|alt| expand_braces(&format!("{}{alt}{}", &p[..open], &p[close + 1..])))
        .collect()
}

/// A tracked file is `pattern`, lies under it, or matches it segment by
/// segment with `*` and `<…>` as wildcards within a segment.
fn matches_tracked(files: &[String], pattern: &str) -> bool {
    let pattern = pattern.trim_end_matches('/');
    let want: Vec<&str> = pattern.split('/').collect();
    files.iter().any(|f| {
        let have: Vec<&str> = f.split('/').collect();
        have.len() >= want.len() && want.iter().zip(&have).all(|(w, h)| segment_matches(w, h))
    })
}

fn segment_matches(pattern: &str, name: &str) -> bool {
    // Placeholders are wildcards.
    let mut p = String::new();
    let mut in_placeholder = false;
    for c in pattern.chars() {
        match c {
            '<' => {
                in_placeholder = true;
                p.push('*');
            }
            '>' => in_placeholder = false,
            _ if in_placeholder => {}
            _ => p.push(c),
        }
    }
    wildcard(p.as_bytes(), name.as_bytes())
}

fn wildcard(p: &[u8], s: &[u8]) -> bool {
    match p.split_first() {
        None => s.is_empty(),
        Some((b'*', rest)) => (0..=s.len()).any(|k| wildcard(rest, &s[k..])),
        Some((c, rest)) => s.first() == Some(c) && wildcard(rest, &s[1..]),
    }
}

/// The crate map of `docs/ARCHITECTURE.md` lists every crate once, with
/// exactly the workspace crates its `Cargo.toml` depends on (normal
/// dependencies).
#[test]
fn the_architecture_crate_map_matches_the_cargo_manifests() {
    let doc = std::fs::read_to_string(repo().join("docs/ARCHITECTURE.md")).unwrap();
    let mut documented: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for line in doc.lines() {
        let Some(rest) = line.strip_prefix("| `sqlwitness-") else {
            continue;
        };
        let name = rest.split('`').next().unwrap().to_string();
        let deps_cell = line
            .trim_end_matches('|')
            .rsplit('|')
            .next()
            .unwrap()
            .trim();
        let deps: BTreeSet<String> = deps_cell
            .split(',')
            .map(|d| d.trim().to_string())
            .filter(|d| !d.is_empty() && d != "—")
            .collect();
        assert!(
            documented.insert(name.clone(), deps).is_none(),
            "sqlwitness-{name} twice in the crate map"
        );
    }
    let mut actual: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for entry in std::fs::read_dir(repo().join("crates")).unwrap() {
        let dir = entry.unwrap().path();
        let manifest = dir.join("Cargo.toml");
        if !manifest.exists() {
            continue;
        }
        let name = dir.file_name().unwrap().to_string_lossy().to_string();
        let name = name
            .strip_prefix("sqlwitness-")
            .unwrap_or(&name)
            .to_string();
        actual.insert(name, workspace_dependencies(&manifest));
    }
    assert_eq!(
        documented, actual,
        "docs/ARCHITECTURE.md's crate map (left) against the Cargo.toml files (right)"
    );
}

/// The `sqlwitness-*` crates in the `[dependencies]` table of `manifest`,
/// without the prefix.
fn workspace_dependencies(manifest: &Path) -> BTreeSet<String> {
    let text = std::fs::read_to_string(manifest).unwrap();
    let mut in_deps = false;
    let mut deps = BTreeSet::new();
    for line in text.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            in_deps = line == "[dependencies]";
            continue;
        }
        if in_deps {
            if let Some(rest) = line.strip_prefix("sqlwitness-") {
                let name: String = rest
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
                    .collect();
                deps.insert(name);
            }
        }
    }
    deps
}

/// What the fifth engine cost: outside its adapter module
/// (`crates/sqlwitness-engines/src/duckdb/`), its dialect file and the
/// adapter's crate in the engines crate's `Cargo.toml`, the product's code
/// names DuckDB in one place only — its module and its entry in the
/// engines crate's family table. Its name in the engine registry, its
/// shipped dialect, its adapter and its grammar come from the dialect
/// file (build scripts list `dialects/`; the grammar is `sqlparser`'s
/// dialect of that name). Anything else (a `match` on the family, a
/// special case by name) is a place the next engine would have to be
/// added too. Comments and test modules aside.
#[test]
fn the_fifth_engine_is_named_only_where_engines_are_registered() {
    let Some(files) = tracked() else {
        return;
    };
    let registered = ["crates/sqlwitness-engines/src/family.rs"];
    let mut found = Vec::new();
    let mut used = BTreeSet::new();
    for path in files.iter().filter(|p| {
        p.starts_with("crates/")
            && (p.contains("/src/") || p.ends_with("/build.rs"))
            && p.ends_with(".rs")
            && !p.starts_with("crates/sqlwitness-engines/src/duckdb/")
            && !p.starts_with("crates/sqlwitness-testkit/")
    }) {
        let Some(text) = text_of(path) else { continue };
        for (i, line) in text.lines().enumerate() {
            if line.trim() == "#[cfg(test)]" {
                break;
            }
            let code = line.split("//").next().unwrap_or("");
            if code.to_ascii_lowercase().contains("duckdb") {
                if registered.contains(&path.as_str()) {
                    used.insert(path.clone());
                } else {
                    found.push(format!("{path}:{}: {}", i + 1, line.trim()));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "DuckDB named outside its module and registration:\n{}",
        found.join("\n")
    );
    assert_eq!(
        used.len(),
        registered.len(),
        "a registration place no longer names DuckDB (update the list): {used:?}"
    );
}

/// Library crates return typed errors: no `Result<…, String>` in the source
/// of any crate but the binary's (a reason carried as a string is a typed
/// error with a message, as `DbError` is).
#[test]
fn library_crates_have_no_string_errors() {
    let Some(files) = tracked() else {
        return;
    };
    let mut found = Vec::new();
    for path in files.iter().filter(|p| {
        p.starts_with("crates/")
            && p.contains("/src/")
            && p.ends_with(".rs")
            && !p.starts_with("crates/sqlwitness-cli/")
    }) {
        let Some(text) = text_of(path) else { continue };
        for (i, line) in text.lines().enumerate() {
            let compact: String = line.split_whitespace().collect();
            if compact.contains("Result<") && string_error(&compact) {
                found.push(format!("{path}:{}: {}", i + 1, line.trim()));
            }
        }
    }
    assert!(found.is_empty(), "string errors:\n{}", found.join("\n"));
}

/// Whether a line (whitespace removed) names a `Result` whose error type is
/// `String`: `Result<T, String>` with any `T`, nested generics included.
fn string_error(compact: &str) -> bool {
    compact.match_indices("Result<").any(|(i, _)| {
        let rest = &compact[i + "Result<".len()..];
        let mut depth = 0usize;
        for (j, c) in rest.char_indices() {
            match c {
                '<' | '(' => depth += 1,
                ')' => depth = depth.saturating_sub(1),
                '>' if depth == 0 => return false,
                '>' => depth -= 1,
                ',' if depth == 0 => return rest[j + 1..].starts_with("String>"),
                _ => {}
            }
        }
        false
    })
}

#[test]
fn the_string_error_rule_reads_generics() {
    assert!(string_error("fnf()->Result<(),String>{"));
    assert!(string_error("x:Vec<Result<Vec<u8>,String>>,"));
    assert!(!string_error(
        "fnf()->Result<BTreeMap<K,String>,EvalError>{"
    ));
    assert!(!string_error("fnf()->Result<(String,u8),DbError>{"));
}
