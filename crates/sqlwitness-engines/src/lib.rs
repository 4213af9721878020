//! sqlwitness-engines
