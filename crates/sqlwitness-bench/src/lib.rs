//! sqlwitness-bench
