//! Where a config's values come from, to check each one and say where a
//! bad one is: [`Ctx`] turns a value into what it means (a rate, a
//! duration, a size, a fraction) or into an error naming the file, the
//! line and the key's full path.

use crate::error::ExperimentError;
use crate::locate;
use engine::units::{parse_bytes, parse_delay_or_length, parse_rate, parse_time};
use engine::{Delta, InputError, Rate};
use std::path::{Path, PathBuf};

/// Where values come from, for error messages.
pub(super) struct Ctx<'a> {
    pub(super) file: &'a str,
    pub(super) text: &'a str,
    pub(super) base: &'a Path,
}

pub(super) type R<T> = Result<T, ExperimentError>;

impl Ctx<'_> {
    pub(super) fn err(&self, path: &str, msg: impl Into<String>) -> ExperimentError {
        ExperimentError::Input(InputError::at(
            self.file,
            locate::key_line(self.text, path),
            path,
            msg,
        ))
    }
    pub(super) fn rate(&self, path: &str, v: &str) -> R<Rate> {
        parse_rate(v).map_err(|m| self.err(path, m))
    }
    /// A duration; `parse_time` bounds it (`engine::units::MAX_INPUT_PS`),
    /// so that sums of times never overflow the clock.
    pub(super) fn time(&self, path: &str, v: &str) -> R<Delta> {
        parse_time(v).map_err(|m| self.err(path, m))
    }
    pub(super) fn positive_time(&self, path: &str, v: &str) -> R<Delta> {
        let d = self.time(path, v)?;
        if d == Delta::ZERO {
            return Err(self.err(path, format!("duration '{v}' must be greater than zero")));
        }
        Ok(d)
    }
    pub(super) fn bytes(&self, path: &str, v: &str) -> R<u64> {
        parse_bytes(v).map_err(|m| self.err(path, m))
    }
    pub(super) fn positive_bytes(&self, path: &str, v: &str) -> R<u64> {
        let b = self.bytes(path, v)?;
        if b == 0 {
            return Err(self.err(path, format!("size '{v}' must be greater than zero")));
        }
        Ok(b)
    }
    pub(super) fn bytes_u32(&self, path: &str, v: &str, positive: bool) -> R<u32> {
        let b = if positive {
            self.positive_bytes(path, v)?
        } else {
            self.bytes(path, v)?
        };
        u32::try_from(b).map_err(|_| self.err(path, format!("size '{v}' is too large")))
    }
    pub(super) fn delay(&self, path: &str, v: &str) -> R<Delta> {
        parse_delay_or_length(v).map_err(|m| self.err(path, m))
    }
    pub(super) fn fraction(&self, path: &str, v: f64, zero_ok: bool) -> R<f64> {
        let ok = v.is_finite() && v <= 1.0 && (v > 0.0 || (zero_ok && v == 0.0));
        if !ok {
            let range = if zero_ok { "[0, 1]" } else { "(0, 1]" };
            return Err(self.err(path, format!("{v} must be in {range}")));
        }
        Ok(v)
    }
    /// The file `rel` names, relative to the config's directory.
    pub(super) fn resolve(&self, rel: &str) -> PathBuf {
        self.base.join(rel)
    }
    /// Read `rel` (relative to the config), or say at `path` why not.
    pub(super) fn read(&self, path: &str, rel: &str, what: &str) -> R<(String, String)> {
        let p = self.resolve(rel);
        let name = p.display().to_string();
        engine::input::read_text(&p)
            .map(|t| (t, name.clone()))
            .map_err(|e| self.err(path, format!("cannot read the {what} '{name}': {e}")))
    }
    pub(super) fn required<T: Clone>(&self, v: &Option<T>, path: &str, why: &str) -> R<T> {
        v.clone()
            .ok_or_else(|| self.err(path, format!("missing; {why} needs it")))
    }
    /// Reject keys set but not used by `kind`.
    pub(super) fn only_keys(
        &self,
        section: &str,
        kind: &str,
        set: &[&'static str],
        allowed: &[&str],
    ) -> R<()> {
        for key in set {
            if !allowed.contains(key) {
                let takes = if allowed.is_empty() {
                    "takes no other keys".to_string()
                } else {
                    format!("takes {}", allowed.join(", "))
                };
                return Err(self.err(
                    &format!("{section}.{key}"),
                    format!("not a key of kind = \"{kind}\" (which {takes})"),
                ));
            }
        }
        Ok(())
    }
}

/// The names of the fields of section `$s` that are set.
macro_rules! set_keys {
    ($s:expr; $($f:ident),* $(,)?) => {{
        let mut v: Vec<&'static str> = Vec::new();
        $( if $s.$f.is_some() { v.push(stringify!($f)); } )*
        v
    }};
}
pub(super) use set_keys;
