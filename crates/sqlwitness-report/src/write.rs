//! Reading and writing `report.json` and `summary.md`.

use std::path::{Path, PathBuf};

use crate::{render_html_with, render_junit, render_markdown, AuditNotes, Report, FORMAT_VERSION};

#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}: not a sqlwitness report: {message}")]
    Format { path: PathBuf, message: String },
}

/// Writes `<dir>/report.json` and `<dir>/summary.md`, `<dir>/report.html`
/// and `<dir>/junit.xml` (creating `dir`),
/// each through a temporary file renamed into place, so a reader never sees
/// half a report.
pub fn write_report(dir: &Path, report: &Report) -> Result<(), ReportError> {
    write_report_with(dir, report, None)
}

/// [`write_report`] with the gold audit's findings in `report.html`.
pub fn write_report_with(
    dir: &Path,
    report: &Report,
    audit: Option<&AuditNotes>,
) -> Result<(), ReportError> {
    std::fs::create_dir_all(dir).map_err(|source| ReportError::Io {
        path: dir.to_path_buf(),
        source,
    })?;
    // report.json last: its presence means every file is complete.
    write_atomic(&dir.join("summary.md"), render_markdown(report).as_bytes())?;
    write_atomic(
        &dir.join("report.html"),
        render_html_with(report, audit).as_bytes(),
    )?;
    write_atomic(&dir.join("junit.xml"), render_junit(report).as_bytes())?;
    let json = serde_json::to_string_pretty(report).expect("report serializes");
    write_atomic(&dir.join("report.json"), json.as_bytes())?;
    Ok(())
}

/// Reads a `report.json` (a regular file within
/// [`sqlwitness_core::input::REPORT_FILE`]), rejecting other format
/// versions.
pub fn read_report(path: &Path) -> Result<Report, ReportError> {
    let text = sqlwitness_core::read_input_to_string(path, sqlwitness_core::input::REPORT_FILE)
        .map_err(|source| ReportError::Io {
            path: path.to_path_buf(),
            source,
        })?;
    let report: Report = serde_json::from_str(&text).map_err(|e| ReportError::Format {
        path: path.to_path_buf(),
        message: format!("line {} column {}: {e}", e.line(), e.column()),
    })?;
    if report.format_version != FORMAT_VERSION {
        return Err(ReportError::Format {
            path: path.to_path_buf(),
            message: format!(
                "format_version {} (this sqlwitness reads {FORMAT_VERSION})",
                report.format_version
            ),
        });
    }
    Ok(report)
}

fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), ReportError> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".partial");
    let tmp = std::path::PathBuf::from(tmp);
    std::fs::write(&tmp, bytes)
        .and_then(|_| std::fs::rename(&tmp, path))
        .map_err(|source| ReportError::Io {
            path: path.to_path_buf(),
            source,
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::{assert_expected, small_report};
    use crate::{render_html, render_junit};

    /// `report.json` is the small report, pretty-printed, byte for byte
    /// (`tests/outputs.rs` checks these files against the schema);
    /// the other files are the writers' output; nothing half-written is
    /// left behind.
    #[test]
    fn report_json_matches_the_expected_file() {
        let dir = tempfile::tempdir().unwrap();
        let r = small_report();
        write_report(dir.path(), &r).unwrap();
        let read = |f: &str| std::fs::read_to_string(dir.path().join(f)).unwrap();
        assert_expected("report.json", &read("report.json"));
        assert_eq!(read("summary.md"), render_markdown(&r));
        assert_eq!(read("report.html"), render_html(&r));
        assert_eq!(read("junit.xml"), render_junit(&r));
        let mut names: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(
            names,
            ["junit.xml", "report.html", "report.json", "summary.md"]
        );
        // The timed report too, so that the schema check covers `ves`.
        let ves = dir.path().join("ves");
        write_report(&ves, &crate::test_support::ves_report()).unwrap();
        let text = std::fs::read_to_string(ves.join("report.json")).unwrap();
        assert_expected("ves-report.json", &text);
    }

    /// The report reads back as it was written: every question, outcome
    /// and count (the scores' floats may differ in the last bit, as
    /// serde_json's default float parser is not correctly rounded).
    #[test]
    fn report_json_reads_back() {
        let dir = tempfile::tempdir().unwrap();
        let r = small_report();
        write_report(dir.path(), &r).unwrap();
        let back = read_report(&dir.path().join("report.json")).unwrap();
        assert_eq!(back.questions, r.questions);
        assert_eq!(back.summary.engines, r.summary.engines);
        assert_eq!((&back.run, &back.tool), (&r.run, &r.tool));
        let (a, b) = (back.summary.scores.unwrap(), r.summary.scores.unwrap());
        assert_eq!(
            (a.rs_breakdown, a.consistency),
            (b.rs_breakdown, b.consistency)
        );
    }

    /// What is not a report says where: a missing file is an I/O error
    /// naming it, text that is not a report a format error with its line
    /// and column, another major version a format error naming it.
    #[test]
    fn what_is_not_a_report_is_a_typed_error() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("none.json");
        assert!(
            matches!(read_report(&missing), Err(ReportError::Io { path, .. }) if path == missing)
        );
        let broken = dir.path().join("broken.json");
        std::fs::write(&broken, "{\n  \"format_version\": 1,\n  \"tool\": x\n}\n").unwrap();
        let e = read_report(&broken).unwrap_err();
        assert!(matches!(&e, ReportError::Format { path, .. } if *path == broken));
        assert!(
            e.to_string()
                .contains("broken.json: not a sqlwitness report: line 3 column 11: "),
            "{e}"
        );
        let mut v = serde_json::to_value(small_report()).unwrap();
        v["format_version"] = 2.into();
        let other = dir.path().join("other.json");
        std::fs::write(&other, v.to_string()).unwrap();
        let e = read_report(&other).unwrap_err().to_string();
        assert!(
            e.ends_with("format_version 2 (this sqlwitness reads 1)"),
            "{e}"
        );
    }

    /// A directory where a file should go is an I/O error naming the file.
    #[test]
    fn a_file_that_cannot_be_written_is_named() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("summary.md")).unwrap();
        let e = write_report(dir.path(), &small_report()).unwrap_err();
        assert!(
            matches!(&e, ReportError::Io { path, .. } if path.ends_with("summary.md")),
            "{e}"
        );
        assert!(!dir.path().join("report.json").exists(), "report.json last");
    }
}
