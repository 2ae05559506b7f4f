//! What the process itself cost: CPU time and peak memory, read from
//! `/proc` (Linux). Elsewhere these read as unavailable and callers fall
//! back to wall-clock time.

/// Clock ticks per second of `/proc/self/stat`'s `utime`/`stime`. Linux
/// fixes this user-visible `USER_HZ` at 100 on every architecture rdmasim
/// runs on (`sysconf(_SC_CLK_TCK)`); reading it would need libc.
const USER_HZ: f64 = 100.0;

/// CPU time (user + system) this process has used, in seconds; `None`
/// where `/proc/self/stat` cannot be read.
pub(crate) fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    parse_stat_cpu(&stat)
}

/// `utime + stime` from the text of `/proc/<pid>/stat`, in seconds. The
/// command name (field 2) is in parentheses and may hold spaces, so fields
/// are counted from the last `)`: `state` is field 3, `utime` 14, `stime` 15.
fn parse_stat_cpu(stat: &str) -> Option<f64> {
    let rest = &stat[stat.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let utime: u64 = fields.get(11)?.parse().ok()?;
    let stime: u64 = fields.get(12)?.parse().ok()?;
    Some((utime + stime) as f64 / USER_HZ)
}

/// Peak resident set size of this process so far (`VmHWM`), in MiB;
/// `None` where `/proc/self/status` cannot be read.
pub(crate) fn peak_rss_mb() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    parse_vm_hwm_mb(&status)
}

fn parse_vm_hwm_mb(status: &str) -> Option<f64> {
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line
        .trim_start_matches("VmHWM:")
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    Some(kb as f64 / 1024.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stat_fields_after_the_command_name() {
        let stat = "1234 (rdm (a) sim) R 1 1234 1234 0 -1 4194304 100 0 0 0 250 50 0 0 20 0 1 0";
        assert_eq!(parse_stat_cpu(stat), Some(3.0));
        assert_eq!(parse_stat_cpu("garbage"), None);
    }

    #[test]
    fn vm_hwm() {
        let status = "Name:\trdmasim\nVmPeak:\t  20480 kB\nVmHWM:\t    2048 kB\n";
        assert_eq!(parse_vm_hwm_mb(status), Some(2.0));
        assert_eq!(parse_vm_hwm_mb("Name: x\n"), None);
    }

    #[test]
    fn reads_this_process() {
        if std::path::Path::new("/proc/self/stat").exists() {
            assert!(cpu_seconds().is_some());
            assert!(peak_rss_mb().unwrap() > 0.0);
        }
    }
}
