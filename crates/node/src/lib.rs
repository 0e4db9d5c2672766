//! Placeholder: built by a later issue.
