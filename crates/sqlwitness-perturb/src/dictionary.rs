//! Rename dictionaries (schema-synonym, schema-abbreviation) and a user's
//! exact renames, as data files.
//!
//! A dictionary file (`data/perturb/schema_*.yaml`, shipped in the binary;
//! `--dictionary FILE` adds to it) names its sources and gives candidates
//! two ways: `columns` per database for exact `table.column`s, and `words`
//! for any benchmark's column names word by word. Candidates are lower-case
//! words separated by spaces, written in the style of the column they
//! replace.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::names::{same_name, styled, words};
use crate::PerturbError;

const SHIPPED_SYNONYMS: &str = include_str!("../../../data/perturb/schema_synonyms.yaml");
const SHIPPED_ABBREVIATIONS: &str = include_str!("../../../data/perturb/schema_abbreviations.yaml");

/// Where a dictionary's entries come from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SourceEntry {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub license: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub used_for: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct DictionaryFile {
    kind: String,
    sources: Vec<SourceEntry>,
    #[serde(default)]
    columns: BTreeMap<String, BTreeMap<String, Vec<String>>>,
    #[serde(default)]
    words: BTreeMap<String, Vec<String>>,
}

/// A loaded dictionary.
#[derive(Debug, Clone, Default)]
pub struct Dictionary {
    pub kind: String,
    pub sources: Vec<SourceEntry>,
    /// `(db_id, table, column)`, lower-case → candidates.
    columns: HashMap<(String, String, String), Vec<String>>,
    words: HashMap<String, Vec<String>>,
}

/// At most this many candidates are offered for one column.
const MAX_CANDIDATES: usize = 3;

impl Dictionary {
    /// The shipped dictionary of `kind` (`synonym` or `abbreviation`).
    pub fn shipped(kind: &str) -> Dictionary {
        let (name, text) = match kind {
            "abbreviation" => (
                "data/perturb/schema_abbreviations.yaml",
                SHIPPED_ABBREVIATIONS,
            ),
            _ => ("data/perturb/schema_synonyms.yaml", SHIPPED_SYNONYMS),
        };
        Dictionary::parse(Path::new(name), text).expect("the shipped dictionaries parse (tested)")
    }

    pub fn load(path: &Path) -> Result<Dictionary, PerturbError> {
        let text =
            sqlwitness_core::read_input_to_string(path, sqlwitness_core::input::MANIFEST_FILE)
                .map_err(|e| PerturbError::io(path, e))?;
        Dictionary::parse(path, &text)
    }

    fn parse(path: &Path, text: &str) -> Result<Dictionary, PerturbError> {
        let file: DictionaryFile = serde_saphyr::from_str(text)
            .map_err(|e| PerturbError::format(path, "", e.to_string()))?;
        let check = |key: String, cands: &[String]| -> Result<(), PerturbError> {
            for c in cands {
                let ok = !c.is_empty()
                    && c.split(' ').all(|w| {
                        !w.is_empty()
                            && w.chars()
                                .all(|ch| ch.is_ascii_lowercase() || ch.is_ascii_digit())
                    });
                if !ok {
                    return Err(PerturbError::format(
                        path,
                        &key,
                        format!(
                            "candidate {c:?}: lower-case words [a-z0-9] separated by single spaces"
                        ),
                    ));
                }
            }
            Ok(())
        };
        let mut columns = HashMap::new();
        for (db, cols) in file.columns {
            for (tc, cands) in cols {
                let Some((t, c)) = tc.split_once('.') else {
                    return Err(PerturbError::format(
                        path,
                        &format!("columns.{db}.{tc}"),
                        "expected <table>.<column>",
                    ));
                };
                check(format!("columns.{db}.{tc}"), &cands)?;
                columns.insert(
                    (db.clone(), t.to_ascii_lowercase(), c.to_ascii_lowercase()),
                    cands,
                );
            }
        }
        for (w, cands) in &file.words {
            check(format!("words.{w}"), cands)?;
        }
        Ok(Dictionary {
            kind: file.kind,
            sources: file.sources,
            columns,
            words: file
                .words
                .into_iter()
                .map(|(w, c)| (w.to_ascii_lowercase(), c))
                .collect(),
        })
    }

    /// Adds `other`'s entries (they win over this dictionary's).
    pub fn extend(&mut self, other: Dictionary) {
        self.sources.extend(other.sources);
        self.columns.extend(other.columns);
        self.words.extend(other.words);
    }

    /// Candidate new names for `table.column` of `db_id`, styled like the
    /// column: the database's own entries first, else word by word (the
    /// whole name with every known word replaced, then one word at a time).
    pub fn candidates(&self, db_id: &str, table: &str, column: &str) -> Vec<String> {
        let key = (
            db_id.to_string(),
            table.to_ascii_lowercase(),
            column.to_ascii_lowercase(),
        );
        let raw: Vec<String> = match self.columns.get(&key) {
            Some(c) => c.clone(),
            None => {
                let ws = words(column);
                let mut out = Vec::new();
                let all: Vec<String> = ws
                    .iter()
                    .map(|w| {
                        self.words
                            .get(w)
                            .and_then(|c| c.first())
                            .cloned()
                            .unwrap_or_else(|| w.clone())
                    })
                    .collect();
                out.push(all.join(" "));
                for (i, w) in ws.iter().enumerate() {
                    for cand in self.words.get(w).into_iter().flatten() {
                        let mut v = ws.clone();
                        v[i] = cand.clone();
                        out.push(v.join(" "));
                    }
                }
                out
            }
        };
        let mut styled_out: Vec<String> = Vec::new();
        for cand in raw {
            if cand.split(' ').count() > 4 {
                continue;
            }
            let name = styled(column, &cand);
            if same_name(&name, column) || styled_out.iter().any(|n| same_name(n, &name)) {
                continue;
            }
            styled_out.push(name);
            if styled_out.len() == MAX_CANDIDATES {
                break;
            }
        }
        styled_out
    }
}

/// A user's exact renames: `<db_id>: {<table>.<column>: <new name>}`.
pub type Renames = BTreeMap<String, BTreeMap<String, String>>;

pub fn load_renames(path: &Path) -> Result<Renames, PerturbError> {
    let text = sqlwitness_core::read_input_to_string(path, sqlwitness_core::input::MANIFEST_FILE)
        .map_err(|e| PerturbError::io(path, e))?;
    let renames: Renames =
        serde_saphyr::from_str(&text).map_err(|e| PerturbError::format(path, "", e.to_string()))?;
    for (db, cols) in &renames {
        for (tc, to) in cols {
            if !tc.contains('.') {
                return Err(PerturbError::format(
                    path,
                    &format!("{db}.{tc}"),
                    "expected <table>.<column>",
                ));
            }
            if to.is_empty() || to.contains('"') {
                return Err(PerturbError::format(
                    path,
                    &format!("{db}.{tc}"),
                    "a new name: not empty, no double quote",
                ));
            }
        }
    }
    Ok(renames)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shipped_dictionaries_parse_and_name_their_sources() {
        for kind in ["synonym", "abbreviation"] {
            let d = Dictionary::shipped(kind);
            assert_eq!(d.kind, kind);
            assert!(!d.sources.is_empty());
            assert!(d.columns.len() > 100 && d.words.len() > 100);
        }
    }

    #[test]
    fn exact_entries_then_words() {
        let d = Dictionary::parse(
            Path::new("t.yaml"),
            "kind: abbreviation\nsources: [{name: test}]\ncolumns:\n  wta:\n    players.Ranking_Points: [rank pts]\nwords:\n  points: [pts]\n  ranking: [rank]\n  number: [num, no]\n",
        )
        .unwrap();
        assert_eq!(
            d.candidates("wta", "players", "Ranking_Points"),
            ["Rank_Pts"]
        );
        assert_eq!(
            d.candidates("other", "t", "Ranking_Points"),
            ["Rank_Pts", "Rank_Points", "Ranking_Pts"]
        );
        assert_eq!(
            d.candidates("other", "t", "phone_number"),
            ["phone_num", "phone_no"]
        );
        assert!(d.candidates("other", "t", "city").is_empty());
        let bad = Dictionary::parse(
            Path::new("t.yaml"),
            "kind: x\nsources: []\nwords:\n  a: [Bad Name]\n",
        );
        assert!(bad.unwrap_err().to_string().contains("words.a"));
    }
}
