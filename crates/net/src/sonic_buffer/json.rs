//! Reading a switch's buffer configuration from SONiC's config_db JSON:
//! the `BUFFER_POOL`, `BUFFER_PROFILE`, `BUFFER_PG` and `BUFFER_QUEUE`
//! tables (Azure App. A, Listing 1). Other tables of a full config_db
//! (`PORT`, `DEVICE_METADATA`, ...) are left alone, so a switch's whole
//! file can be given. Within the four tables every field is checked: a
//! misspelt one is an error, not a default.
//!
//! Every error names the file and the key at fault as
//! `TABLE.entry.field`, e.g. `BUFFER_PROFILE.pg_lossless.pool: no pool
//! "ingress_lossless_pool"`.

use super::config::{
    Pool, PoolMode, PoolType, PortProfiles, Profile, SonicBufferConfig, Threshold,
};
use crate::wire::N_CLASSES;
use engine::InputError;
use serde_json::{Map, Value};
use std::path::Path;

/// The range of `dynamic_th` rdmasim takes: α from 1/256 to 256, as
/// SONiC's schema allows.
const DYNAMIC_TH: std::ops::RangeInclusive<i64> = -8..=8;

/// Read and parse the config_db JSON file at `path`; see [`parse`]. Errors
/// name the file as `path` is written.
pub fn read(path: &Path) -> Result<SonicBufferConfig, InputError> {
    let file = path.display().to_string();
    let text = engine::input::read_text(path).map_err(|e| {
        InputError::at(
            file.as_str(),
            engine::input::not_utf8(&e).map(|b| b.line),
            "",
            format!("cannot read the SONiC buffer configuration: {e}"),
        )
    })?;
    parse(&text, &file)
}

/// Parse config_db JSON `text`, read from `file` (for errors).
pub fn parse(text: &str, file: &str) -> Result<SonicBufferConfig, InputError> {
    let err = |field: &str, msg: String| InputError::at(file, None, field, msg);
    let root: Value = serde_json::from_str(text)
        .map_err(|e| InputError::at(file, Some(e.line()), "", format!("not valid JSON: {e}")))?;
    let root = root.as_object().ok_or_else(|| {
        err(
            "",
            "not a config_db object: expected { \"BUFFER_POOL\": ..., ... }".into(),
        )
    })?;
    let mut cfg = SonicBufferConfig::default();
    for (name, entry) in table(root, "BUFFER_POOL", file)? {
        let pool = read_pool(name, entry).map_err(|(f, m)| err(&f, m))?;
        cfg.pools.push(pool);
    }
    for (name, entry) in table(root, "BUFFER_PROFILE", file)? {
        let profile = read_profile(&cfg, name, entry).map_err(|(f, m)| err(&f, m))?;
        cfg.profiles.push(profile);
    }
    for (tbl, kind) in [
        ("BUFFER_PG", PoolType::Ingress),
        ("BUFFER_QUEUE", PoolType::Egress),
    ] {
        let Some(entries) = root.get(tbl) else {
            continue;
        };
        let entries = entries
            .as_object()
            .ok_or_else(|| err(tbl, "expected an object of \"port|classes\" entries".into()))?;
        for (key, entry) in entries {
            map_classes(&mut cfg, tbl, kind, key, entry).map_err(|(f, m)| err(&f, m))?;
        }
    }
    Ok(cfg)
}

/// What went wrong where: (`TABLE.entry.field`, message).
type Fault = (String, String);

/// The entries of required table `name`.
fn table<'a>(
    root: &'a Map<String, Value>,
    name: &str,
    file: &str,
) -> Result<&'a Map<String, Value>, InputError> {
    match root.get(name) {
        None => Err(InputError::at(
            file,
            None,
            name,
            "missing: a SONiC buffer configuration needs BUFFER_POOL and BUFFER_PROFILE",
        )),
        Some(Value::Object(m)) => Ok(m),
        Some(_) => Err(InputError::at(
            file,
            None,
            name,
            "expected an object of named entries",
        )),
    }
}

/// The fields of entry `at`, each checked against `known`.
fn fields<'a>(at: &str, entry: &'a Value, known: &[&str]) -> Result<&'a Map<String, Value>, Fault> {
    let m = entry
        .as_object()
        .ok_or_else(|| (at.to_string(), "expected an object of fields".to_string()))?;
    if let Some(k) = m.keys().find(|k| !known.contains(&k.as_str())) {
        return Err((
            format!("{at}.{k}"),
            format!(
                "not a field rdmasim reads here (it reads {})",
                known.join(", ")
            ),
        ));
    }
    Ok(m)
}

/// Field `key` of `m` as text: config_db writes every value as a string.
fn text<'a>(m: &'a Map<String, Value>, at: &str, key: &str) -> Result<Option<&'a str>, Fault> {
    match m.get(key) {
        None => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.trim())),
        Some(_) => Err((format!("{at}.{key}"), "expected a string".into())),
    }
}

/// Required field `key` of `m`, as text.
fn required<'a>(m: &'a Map<String, Value>, at: &str, key: &str) -> Result<&'a str, Fault> {
    text(m, at, key)?.ok_or_else(|| (format!("{at}.{key}"), "missing".to_string()))
}

/// Field `key` of `m` as a whole number, signed; a JSON number is taken
/// as well as config_db's string.
fn integer(m: &Map<String, Value>, at: &str, key: &str) -> Result<Option<i64>, Fault> {
    let here = || format!("{at}.{key}");
    let s = match m.get(key) {
        None => return Ok(None),
        Some(Value::Number(n)) => {
            return n
                .as_i64()
                .map(Some)
                .ok_or_else(|| (here(), format!("not a whole number: {n}")))
        }
        Some(Value::String(s)) => s.trim(),
        Some(_) => return Err((here(), "expected a number in a string".into())),
    };
    s.parse::<i64>().map(Some).map_err(|_| {
        let hint = if s.contains('\u{2212}') {
            " (a typographic minus sign: write -)"
        } else {
            ""
        };
        (here(), format!("not a whole number: \"{s}\"{hint}"))
    })
}

/// Field `key` of `m` as a byte count.
fn bytes(m: &Map<String, Value>, at: &str, key: &str) -> Result<Option<u64>, Fault> {
    match integer(m, at, key)? {
        Some(n) if n < 0 => Err((format!("{at}.{key}"), format!("must not be negative: {n}"))),
        n => Ok(n.map(|n| n as u64)),
    }
}

fn read_pool(name: &str, entry: &Value) -> Result<Pool, Fault> {
    let at = format!("BUFFER_POOL.{name}");
    let m = fields(&at, entry, &["size", "type", "mode", "xoff"])?;
    let kind = match required(m, &at, "type")? {
        "ingress" => PoolType::Ingress,
        "egress" => PoolType::Egress,
        t => {
            return Err((
                format!("{at}.type"),
                format!("\"{t}\": expected \"ingress\" or \"egress\""),
            ))
        }
    };
    let mode = match required(m, &at, "mode")? {
        "dynamic" => PoolMode::Dynamic,
        "static" => PoolMode::Static,
        t => {
            return Err((
                format!("{at}.mode"),
                format!("\"{t}\": expected \"dynamic\" or \"static\""),
            ))
        }
    };
    let size = bytes(m, &at, "size")?.ok_or_else(|| (format!("{at}.size"), "missing".into()))?;
    let xoff = bytes(m, &at, "xoff")?.unwrap_or(0);
    if xoff > 0 && kind == PoolType::Egress {
        return Err((
            format!("{at}.xoff"),
            "headroom is an ingress pool's: an egress pool has no xoff".into(),
        ));
    }
    Ok(Pool {
        name: name.to_string(),
        kind,
        mode,
        size,
        xoff,
    })
}

/// The name a reference gives in `table`: `[TABLE|name]`, as older
/// config_db files write it, or the bare `name` of newer ones.
fn reference<'a>(r: &'a str, table: &str) -> Result<&'a str, String> {
    let Some(inner) = r.strip_prefix('[').and_then(|s| s.strip_suffix(']')) else {
        return Ok(r);
    };
    match inner.split_once('|') {
        Some((t, name)) if t.trim() == table => Ok(name.trim()),
        Some((t, _)) => Err(format!("\"{r}\" names table {t}, not {table}")),
        None => Err(format!("\"{r}\": expected [{table}|name] or a bare name")),
    }
}

fn read_profile(cfg: &SonicBufferConfig, name: &str, entry: &Value) -> Result<Profile, Fault> {
    let at = format!("BUFFER_PROFILE.{name}");
    let m = fields(
        &at,
        entry,
        &[
            "pool",
            "size",
            "dynamic_th",
            "static_th",
            "xoff",
            "xon",
            "xon_offset",
        ],
    )?;
    let pool_ref = required(m, &at, "pool")?;
    let pool_name =
        reference(pool_ref, "BUFFER_POOL").map_err(|msg| (format!("{at}.pool"), msg))?;
    let pool = cfg
        .pool(pool_name)
        .ok_or_else(|| (format!("{at}.pool"), format!("no pool \"{pool_name}\"")))?;
    let size = bytes(m, &at, "size")?.ok_or_else(|| (format!("{at}.size"), "missing".into()))?;
    let threshold = match (integer(m, &at, "dynamic_th")?, bytes(m, &at, "static_th")?) {
        (Some(th), None) if DYNAMIC_TH.contains(&th) => Threshold::Dynamic(th as i8),
        (Some(th), None) => {
            return Err((
                format!("{at}.dynamic_th"),
                format!(
                    "{th} is out of range: rdmasim takes {} to {} (alpha = 2^dynamic_th)",
                    DYNAMIC_TH.start(),
                    DYNAMIC_TH.end()
                ),
            ))
        }
        (None, Some(b)) => Threshold::Static(b),
        (Some(_), Some(_)) => return Err((at, "both dynamic_th and static_th: give one".into())),
        (None, None) => return Err((at, "no threshold: give dynamic_th or static_th".into())),
    };
    let xoff = bytes(m, &at, "xoff")?.unwrap_or(0);
    if xoff > 0 && cfg.pools[pool].kind == PoolType::Egress {
        return Err((
            format!("{at}.xoff"),
            format!("headroom is an ingress PG's, and pool \"{pool_name}\" is an egress pool"),
        ));
    }
    Ok(Profile {
        name: name.to_string(),
        pool,
        size,
        threshold,
        xoff,
        xon: bytes(m, &at, "xon")?.unwrap_or(0),
        xon_offset: bytes(m, &at, "xon_offset")?.unwrap_or(0),
    })
}

/// The classes a `BUFFER_PG` or `BUFFER_QUEUE` key names: `3` or `3-4`.
fn classes(s: &str) -> Option<std::ops::RangeInclusive<usize>> {
    let (lo, hi) = s.split_once('-').unwrap_or((s, s));
    let (lo, hi): (usize, usize) = (lo.trim().parse().ok()?, hi.trim().parse().ok()?);
    (lo <= hi && hi < N_CLASSES).then_some(lo..=hi)
}

/// Map the classes of one `BUFFER_PG` (`kind` ingress) or `BUFFER_QUEUE`
/// (egress) entry, keyed `port[,port...]|classes`, to its profile.
fn map_classes(
    cfg: &mut SonicBufferConfig,
    tbl: &str,
    kind: PoolType,
    key: &str,
    entry: &Value,
) -> Result<(), Fault> {
    let at = format!("{tbl}.{key}");
    let Some((ports, range)) = key.split_once('|') else {
        return Err((
            at,
            "expected a key \"port|classes\", e.g. \"Ethernet0|3-4\"".into(),
        ));
    };
    let range = classes(range).ok_or_else(|| {
        (
            at.clone(),
            format!(
                "\"{range}\": expected a class or a range of classes from 0 to {}",
                N_CLASSES - 1
            ),
        )
    })?;
    let m = fields(&at, entry, &["profile"])?;
    let name = reference(required(m, &at, "profile")?, "BUFFER_PROFILE")
        .map_err(|msg| (format!("{at}.profile"), msg))?;
    let profile = cfg
        .profile(name)
        .ok_or_else(|| (format!("{at}.profile"), format!("no profile \"{name}\"")))?;
    let pool = &cfg.pools[cfg.profiles[profile].pool];
    if pool.kind != kind {
        return Err((
            format!("{at}.profile"),
            format!(
                "profile \"{name}\" is in pool \"{}\", not an {} pool",
                pool.name,
                match kind {
                    PoolType::Ingress => "ingress",
                    PoolType::Egress => "egress",
                }
            ),
        ));
    }
    for port in ports.split(',').map(str::trim) {
        let p: &mut PortProfiles = cfg.ports.entry(port.to_string()).or_default();
        let side = match kind {
            PoolType::Ingress => &mut p.pg,
            PoolType::Egress => &mut p.queue,
        };
        for c in range.clone() {
            if side[c].replace(profile).is_some() {
                return Err((at, format!("class {c} of {port} is mapped twice in {tbl}")));
            }
        }
    }
    Ok(())
}
