//! A progress bar on a terminal, nothing otherwise; the evaluator's
//! stages report through [`Bars`].

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;

pub fn bar(len: u64, message: &str, quiet: bool) -> ProgressBar {
    if quiet || !std::io::stderr().is_terminal() {
        return ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::hidden());
    }
    let pb = ProgressBar::new(len);
    pb.set_style(
        ProgressStyle::with_template("{msg:>12} [{bar:40}] {pos}/{len} ({eta})")
            .expect("valid template")
            .progress_chars("=> "),
    );
    pb.set_message(sqlwitness_core::escape_controls(message).into_owned());
    pb
}

/// Progress bars for the evaluator's stages (hidden with `-q` or off a
/// terminal); log lines go to stderr.
pub struct Bars {
    pub quiet: bool,
}

struct Stage(ProgressBar);

impl sqlwitness_eval::Bar for Stage {
    fn inc(&self, n: u64) {
        self.0.inc(n);
    }
    fn note(&self, message: &str) {
        self.0.suspend(|| say!("{message}"));
    }
    fn finish(&self) {
        self.0.finish_and_clear();
    }
}

impl sqlwitness_eval::Progress for Bars {
    fn bar(&self, len: u64, label: &str) -> Box<dyn sqlwitness_eval::Bar> {
        Box::new(Stage(bar(len, label, self.quiet)))
    }
    fn note(&self, message: &str) {
        say!("{message}");
    }
}
