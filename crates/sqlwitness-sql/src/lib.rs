//! sqlwitness-sql
