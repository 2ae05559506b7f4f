//! The one error type every input loader returns: it names the file, the
//! line and the field, so a user can go straight to the mistake.

use std::fmt;

/// Bad input: a file or value that does not parse or does not make sense.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct InputError {
    /// The file (or `<config>` / `<command line>` for values not from a file).
    pub file: String,
    /// 1-based line, when known.
    pub line: Option<usize>,
    /// The field or key at fault (e.g. `rate`, `[switch].buffer`).
    pub field: String,
    /// What is wrong and, where possible, what to do.
    pub msg: String,
}

impl InputError {
    /// An error at `file:line` in `field`.
    pub fn at(
        file: impl Into<String>,
        line: Option<usize>,
        field: impl Into<String>,
        msg: impl Into<String>,
    ) -> InputError {
        InputError {
            file: file.into(),
            line,
            field: field.into(),
            msg: msg.into(),
        }
    }
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file)?;
        if let Some(l) = self.line {
            write!(f, ":{l}")?;
        }
        if self.field.is_empty() {
            write!(f, ": {}", self.msg)
        } else {
            write!(f, ": {}: {}", self.field, self.msg)
        }
    }
}
