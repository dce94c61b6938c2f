//! WebIDL glue.
