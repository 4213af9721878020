//! Result comparison. See the README's "Comparison semantics" section.
