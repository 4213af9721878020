//! sqlwitness-report
