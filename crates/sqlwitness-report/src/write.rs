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
