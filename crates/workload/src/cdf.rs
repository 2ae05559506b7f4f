//! Flow-size distributions: a piecewise-linear CDF sampled by inverse
//! transform, the two built-in data-centre workloads, and the loader for
//! user CDF files (the HPCC repository's `size cumulative_percent` format).

use engine::{InputError, Rng};
use std::path::Path;

/// A flow-size CDF: points `(size_bytes, cumulative_fraction)` joined by
/// straight lines.
///
/// Sizes and fractions are non-decreasing, fractions lie in `[0, 1]` and the
/// last one is exactly 1. If the first fraction is above 0, that much
/// probability sits on the first size (a point mass).
#[derive(Clone, Debug, PartialEq)]
pub struct SizeCdf {
    points: Vec<(f64, f64)>,
}

/// How far the last cumulative value may be from 1 (or 100 %) and still
/// count as the end of the distribution.
const END_TOLERANCE: f64 = 1e-9;

impl SizeCdf {
    /// A CDF from `(size_bytes, cumulative_fraction)` points, checked: at
    /// least 2 points, all finite and non-negative, both columns
    /// non-decreasing, fractions at most 1 and the last one 1.
    pub fn new(mut points: Vec<(f64, f64)>) -> Result<SizeCdf, String> {
        if points.len() < 2 {
            return Err(format!(
                "a CDF needs at least 2 points, found {}",
                points.len()
            ));
        }
        for (i, &(s, p)) in points.iter().enumerate() {
            if !s.is_finite() || s < 0.0 {
                return Err(format!(
                    "point {}: size {s} is not a non-negative number",
                    i + 1
                ));
            }
            if !p.is_finite() || !(0.0..=1.0 + END_TOLERANCE).contains(&p) {
                return Err(format!("point {}: cumulative {p} is not in [0, 1]", i + 1));
            }
            if i > 0 {
                let (ps, pp) = points[i - 1];
                if s < ps {
                    return Err(format!(
                        "CDF is not monotone: size {s} at point {} is below {ps} at point {i}",
                        i + 1
                    ));
                }
                if p < pp {
                    return Err(format!(
                        "CDF is not monotone: cumulative {p} at point {} is below {pp} at point {i}",
                        i + 1
                    ));
                }
            }
        }
        let last = points.last_mut().expect("at least 2 points");
        if (last.1 - 1.0).abs() > END_TOLERANCE {
            return Err(format!(
                "the last cumulative value is {}; a CDF must end at 1.0 (100%)",
                last.1
            ));
        }
        last.1 = 1.0;
        Ok(SizeCdf { points })
    }

    fn from_percent(points: &[(f64, f64)]) -> SizeCdf {
        SizeCdf::new(points.iter().map(|&(s, p)| (s, p / 100.0)).collect())
            .expect("built-in CDFs are valid")
    }

    /// The web-search workload (Alizadeh et al., "Data Center TCP",
    /// SIGCOMM 2010), as in the HPCC repository's `WebSearch_distribution.txt`.
    /// Mean 1 711 250 bytes.
    pub fn websearch() -> SizeCdf {
        SizeCdf::from_percent(&[
            (0.0, 0.0),
            (10_000.0, 15.0),
            (20_000.0, 20.0),
            (30_000.0, 30.0),
            (50_000.0, 40.0),
            (80_000.0, 53.0),
            (200_000.0, 60.0),
            (1_000_000.0, 70.0),
            (2_000_000.0, 80.0),
            (5_000_000.0, 90.0),
            (10_000_000.0, 97.0),
            (30_000_000.0, 100.0),
        ])
    }

    /// The Facebook Hadoop workload (Roy et al., "Inside the Social
    /// Network's (Datacenter) Network", SIGCOMM 2015), as in the HPCC
    /// repository's `FbHdp_distribution.txt`.
    pub fn fb_hadoop() -> SizeCdf {
        SizeCdf::from_percent(&[
            (0.0, 0.0),
            (100.0, 1.0),
            (200.0, 2.0),
            (300.0, 5.0),
            (350.0, 15.0),
            (400.0, 20.0),
            (500.0, 30.0),
            (600.0, 40.0),
            (700.0, 50.0),
            (1_000.0, 60.0),
            (2_000.0, 67.0),
            (7_000.0, 70.0),
            (30_000.0, 72.0),
            (50_000.0, 82.0),
            (80_000.0, 87.0),
            (120_000.0, 90.0),
            (300_000.0, 95.0),
            (1_000_000.0, 97.5),
            (2_000_000.0, 99.0),
            (10_000_000.0, 100.0),
        ])
    }

    /// The Facebook web-server workload (Roy et al., "Inside the Social
    /// Network's (Datacenter) Network", SIGCOMM 2015; its intra-cluster
    /// web-server flow sizes), as in the Homa simulator's
    /// `Facebook_WebServerDist_IntraCluster.txt` (PlatformLab/HomaSimulation,
    /// docs/sources.md): sizes in bytes, the first point (84 B, 6.1%) a point
    /// mass. About 65% of its flows are at most 10 KB and 81% at most
    /// 100 KB; mean 62,483 B (the file's header says 68,937 B, the mean of
    /// its own steps).
    pub fn fb_webserver() -> SizeCdf {
        SizeCdf::from_percent(&[
            (84.0, 6.1),
            (153.0, 12.6),
            (301.0, 21.5),
            (500.0, 22.6),
            (639.0, 24.07),
            (800.0, 25.37),
            (900.0, 26.67),
            (1_000.0, 29.26),
            (1_085.0, 31.30),
            (1_357.0, 33.52),
            (1_534.0, 35.00),
            (1_664.0, 37.22),
            (1_843.0, 39.63),
            (2_000.0, 40.93),
            (3_000.0, 47.96),
            (4_000.0, 52.59),
            (5_000.0, 56.30),
            (6_000.0, 58.89),
            (7_000.0, 61.11),
            (8_000.0, 62.60),
            (9_000.0, 64.07),
            (10_000.0, 65.19),
            (14_140.0, 68.52),
            (20_000.0, 71.48),
            (24_512.0, 73.15),
            (30_000.0, 74.63),
            (34_660.0, 75.74),
            (40_000.0, 76.67),
            (45_171.0, 77.59),
            (50_000.0, 78.15),
            (60_000.0, 79.26),
            (70_000.0, 80.0),
            (80_000.0, 80.74),
            (100_000.0, 81.48),
            (144_310.0, 82.41),
            (200_000.0, 85.74),
            (260_573.0, 89.44),
            (300_000.0, 92.22),
            (353_730.0, 95.56),
            (400_000.0, 97.41),
            (442_606.0, 98.33),
            (565_213.0, 99.07),
            (778_003.0, 99.63),
            (1_000_000.0, 100.0),
        ])
    }

    /// A built-in CDF by name, ignoring case, `_`, `-` and spaces:
    /// `websearch` (also `WebSearch`, `web_search`) or `fb_hadoop` (also
    /// `FbHdp`, `hadoop`). A trailing `_distribution` (the HPCC file names)
    /// is accepted too.
    pub fn builtin(name: &str) -> Option<SizeCdf> {
        let mut key: String = name
            .chars()
            .filter(|c| !matches!(c, '_' | '-' | ' '))
            .collect::<String>()
            .to_ascii_lowercase();
        if let Some(stripped) = key.strip_suffix("distribution") {
            key = stripped.to_string();
        }
        match key.as_str() {
            "websearch" | "web" => Some(SizeCdf::websearch()),
            "fbhadoop" | "fbhdp" | "hadoop" => Some(SizeCdf::fb_hadoop()),
            "fbwebserver" | "webserver" => Some(SizeCdf::fb_webserver()),
            _ => None,
        }
    }

    /// The names [`SizeCdf::builtin`] knows, for error messages.
    pub const BUILTIN_NAMES: [&'static str; 3] = ["websearch", "fb_hadoop", "fb_webserver"];

    /// The points `(size_bytes, cumulative_fraction)`.
    pub fn points(&self) -> &[(f64, f64)] {
        &self.points
    }

    /// The size at cumulative fraction `u` (clamped to `[0, 1]`), linearly
    /// interpolated and not rounded: for `p[i-1] <= u < p[i]` it is
    /// `s[i-1] + (u - p[i-1]) / (p[i] - p[i-1]) * (s[i] - s[i-1])`.
    pub fn quantile(&self, u: f64) -> f64 {
        let u = u.clamp(0.0, 1.0);
        let pts = &self.points;
        // First point whose cumulative value exceeds u.
        let i = pts.partition_point(|&(_, p)| p <= u);
        if i == 0 {
            return pts[0].0; // point mass below the first cumulative value
        }
        if i == pts.len() {
            return pts[pts.len() - 1].0; // u == 1
        }
        let (s0, p0) = pts[i - 1];
        let (s1, p1) = pts[i];
        s0 + (u - p0) / (p1 - p0) * (s1 - s0)
    }

    /// The flow size for uniform draw `u` in `[0, 1)`: [`SizeCdf::quantile`]
    /// rounded to whole bytes, at least 1.
    pub fn size_at(&self, u: f64) -> u64 {
        (self.quantile(u).round() as u64).max(1)
    }

    /// Draw one flow size.
    pub fn sample(&self, rng: &mut Rng) -> u64 {
        self.size_at(rng.uniform())
    }

    /// The exact mean of the piecewise-linear distribution, in bytes:
    /// `p[0] * s[0] + sum over segments of (p[i] - p[i-1]) * (s[i] + s[i-1]) / 2`.
    /// (Sampled sizes are rounded and at least 1 byte, which moves their
    /// mean by well under a byte for realistic CDFs.)
    pub fn mean(&self) -> f64 {
        let pts = &self.points;
        let mut m = pts[0].1 * pts[0].0;
        for w in pts.windows(2) {
            let ((s0, p0), (s1, p1)) = (w[0], w[1]);
            m += (p1 - p0) * (s1 + s0) / 2.0;
        }
        m
    }
}

/// Parse a CDF file: one point per line, `size cumulative`, with `#`
/// comments and blank lines allowed. The cumulative column is a fraction
/// (ending at 1.0) or, if the last value is above 1, a percentage (ending at
/// 100) as in the HPCC repository's traffic files.
pub fn parse_cdf(text: &str, file: &str) -> Result<SizeCdf, InputError> {
    // (size, cumulative as written, line)
    let mut rows: Vec<(f64, f64, usize)> = Vec::new();
    for (idx, raw) in text.lines().enumerate() {
        let line = idx + 1;
        let content = raw.split('#').next().unwrap_or("").trim();
        if content.is_empty() {
            continue;
        }
        let err = |field: &str, msg: String| InputError::at(file, Some(line), field, msg);
        let mut toks = content.split_whitespace();
        let size_tok = toks.next().expect("non-empty line has a token");
        let Some(cum_tok) = toks.next() else {
            return Err(err(
                "cumulative",
                format!(
                    "missing cumulative value after size '{size_tok}' (expected `size cumulative`)"
                ),
            ));
        };
        if let Some(extra) = toks.next() {
            return Err(err(
                "cumulative",
                format!("unexpected extra value '{extra}' after the cumulative value (expected `size cumulative`)"),
            ));
        }
        let size = parse_non_negative(size_tok).map_err(|m| err("size", m))?;
        let cum = parse_non_negative(cum_tok).map_err(|m| err("cumulative", m))?;
        if let Some(&(ps, pc, pl)) = rows.last() {
            if size < ps {
                return Err(err(
                    "size",
                    format!("CDF is not monotone: size {size} at line {line} is below {ps} at line {pl}"),
                ));
            }
            if cum < pc {
                return Err(err(
                    "cumulative",
                    format!(
                        "CDF is not monotone: cumulative {cum} at line {line} is below {pc} at line {pl}"
                    ),
                ));
            }
        }
        rows.push((size, cum, line));
    }
    if rows.len() < 2 {
        return Err(InputError::at(
            file,
            None,
            "",
            format!(
                "a CDF needs at least 2 points (`size cumulative` lines), found {}",
                rows.len()
            ),
        ));
    }
    let &(_, last, last_line) = rows.last().expect("at least 2 rows");
    let percent = last > 1.0;
    let scale = if percent { 100.0 } else { 1.0 };
    if (last / scale - 1.0).abs() > END_TOLERANCE {
        return Err(InputError::at(
            file,
            Some(last_line),
            "cumulative",
            format!(
                "the last cumulative value is {last}; a CDF must end at 1.0 (written as \
                 fractions) or 100 (as percent)"
            ),
        ));
    }
    let points = rows.iter().map(|&(s, c, _)| (s, c / scale)).collect();
    SizeCdf::new(points).map_err(|m| InputError::at(file, None, "", m))
}

fn parse_non_negative(tok: &str) -> Result<f64, String> {
    let v: f64 = tok
        .parse()
        .map_err(|_| format!("'{tok}' is not a number"))?;
    if !v.is_finite() {
        return Err(format!("'{tok}' is not a finite number"));
    }
    if v < 0.0 {
        return Err(format!("'{tok}' must not be negative"));
    }
    Ok(v)
}

/// Read and parse a CDF file (see [`parse_cdf`]).
pub fn load_cdf(path: impl AsRef<Path>) -> Result<SizeCdf, InputError> {
    let path = path.as_ref();
    let name = path.display().to_string();
    let text = engine::input::read_text(path)
        .map_err(|e| InputError::at(&name, None, "", format!("cannot read CDF file: {e}")))?;
    parse_cdf(&text, &name)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-6 * b.abs().max(1.0)
    }

    #[test]
    fn websearch_interpolation_by_hand() {
        let c = SizeCdf::websearch();
        // Halfway along 0..10000 (0 to 15 %).
        assert_eq!(c.size_at(0.075), 5_000);
        // Halfway along 10000..20000 (15 to 20 %).
        assert_eq!(c.size_at(0.175), 15_000);
        // Exactly on a point: the segment that starts there.
        assert_eq!(c.size_at(0.15), 10_000);
        // 5e6 + (0.95-0.90)/(0.97-0.90) * 5e6 = 8 571 428.57...
        assert_eq!(c.size_at(0.95), 8_571_429);
        // u = 0 gives size 0, rounded up to 1 byte.
        assert_eq!(c.size_at(0.0), 1);
        assert!(close(c.quantile(0.0), 0.0));
        // The top of the range.
        assert!(c.size_at(0.999_999_999) <= 30_000_000);
        assert_eq!(c.size_at(1.0), 30_000_000);
    }

    #[test]
    fn fb_hadoop_interpolation_by_hand() {
        let c = SizeCdf::fb_hadoop();
        // 300..350 spans 5 %..15 %: 10 % is halfway, 325.
        assert_eq!(c.size_at(0.10), 325);
        // 1000..2000 spans 60..67 %: 63.5 % is halfway, 1500.
        assert_eq!(c.size_at(0.635), 1_500);
    }

    #[test]
    fn websearch_mean_is_exact() {
        // 750 + 750 + 2500 + 4000 + 8450 + 9800 + 60000 + 150000 + 350000
        // + 525000 + 600000.
        assert!(close(SizeCdf::websearch().mean(), 1_711_250.0));
        let m = SizeCdf::fb_hadoop().mean();
        assert!(m > 100_000.0 && m < 300_000.0, "{m}");
    }

    #[test]
    fn sampled_mean_matches() {
        let c = SizeCdf::websearch();
        let mut r = Rng::stream(7, 99, 0);
        let n = 400_000;
        let m: f64 = (0..n).map(|_| c.sample(&mut r) as f64).sum::<f64>() / n as f64;
        assert!((m / c.mean() - 1.0).abs() < 0.02, "{m}");
    }

    #[test]
    fn point_mass_at_first_size() {
        let c = SizeCdf::new(vec![(1000.0, 0.5), (3000.0, 1.0)]).unwrap();
        assert_eq!(c.size_at(0.2), 1000);
        assert_eq!(c.size_at(0.75), 2000);
        assert!(close(c.mean(), 0.5 * 1000.0 + 0.5 * 2000.0));
    }

    #[test]
    fn builtin_names() {
        for n in [
            "websearch",
            "WebSearch",
            "web_search",
            "WebSearch_distribution",
        ] {
            assert_eq!(SizeCdf::builtin(n), Some(SizeCdf::websearch()), "{n}");
        }
        for n in [
            "fb_hadoop",
            "FbHdp",
            "hadoop",
            "FBHADOOP",
            "FbHdp_distribution",
        ] {
            assert_eq!(SizeCdf::builtin(n), Some(SizeCdf::fb_hadoop()), "{n}");
        }
        for n in ["fb_webserver", "FB_WebServer", "webserver"] {
            assert_eq!(SizeCdf::builtin(n), Some(SizeCdf::fb_webserver()), "{n}");
        }
        assert_eq!(SizeCdf::builtin("cache"), None);
    }

    /// FlowSail §VI-B: its two workloads have "around 70% and 20% of flows
    /// under 10KB"; the pairing is swapped in the text: the web-server
    /// workload is the one with most flows short (65% at most 10 KB, 71%
    /// under 20 KB), web search the one with few (15%). Checked on the
    /// samples a run draws, and the web-server mean against the 68,937 B
    /// its source file states (its steps' mean; ours interpolates).
    #[test]
    fn fb_webserver_is_mostly_short_flows_and_websearch_is_not() {
        let share_short = |c: &SizeCdf| {
            let mut rng = Rng::stream(7, 0, 0);
            let n = 200_000;
            (0..n).filter(|_| c.sample(&mut rng) <= 10_000).count() as f64 / n as f64
        };
        let ws = share_short(&SizeCdf::fb_webserver());
        assert!((0.62..0.70).contains(&ws), "web server: {ws}");
        let search = share_short(&SizeCdf::websearch());
        assert!((0.13..0.17).contains(&search), "web search: {search}");
        let mean = SizeCdf::fb_webserver().mean();
        assert!((55_000.0..69_000.0).contains(&mean), "{mean}");
        assert_eq!(SizeCdf::fb_webserver().size_at(0.0), 84);
    }

    #[test]
    fn parses_percent_and_fraction_files() {
        let pct = "# websearch, HPCC style\n0 0\n10000 15\n\n20000 20  # comment\n30000000 100\n";
        let c = parse_cdf(pct, "ws.txt").unwrap();
        assert_eq!(c.points().len(), 4);
        assert!(close(c.points()[1].1, 0.15));
        assert_eq!(c.size_at(0.175), 15_000);
        let frac = "0 0\n10000 0.15\n20000 0.2\n30000000 1.0\n";
        assert_eq!(parse_cdf(frac, "f.txt").unwrap(), c);
    }

    #[test]
    fn parse_errors_name_line_and_field() {
        let e = parse_cdf("0 0\nabc 50\n100 100\n", "c.txt").unwrap_err();
        assert_eq!((e.line, e.field.as_str()), (Some(2), "size"));
        assert!(e.to_string().starts_with("c.txt:2: size: "), "{e}");

        let e = parse_cdf("0 0\n10 x\n100 100\n", "c.txt").unwrap_err();
        assert_eq!((e.line, e.field.as_str()), (Some(2), "cumulative"));

        let e = parse_cdf("0 0\n-10 5\n100 100\n", "c.txt").unwrap_err();
        assert_eq!((e.line, e.field.as_str()), (Some(2), "size"));
        assert!(e.msg.contains("negative"), "{e}");

        let e = parse_cdf("0 0\n10 0.1\n20 0.2\n30 0.4\n40 0.3\n50 1\n", "c.txt").unwrap_err();
        assert_eq!(
            e.to_string(),
            "c.txt:5: cumulative: CDF is not monotone: cumulative 0.3 at line 5 is below 0.4 at line 4"
        );

        let e = parse_cdf("0 0\n500 10\n400 20\n900 100\n", "c.txt").unwrap_err();
        assert_eq!((e.line, e.field.as_str()), (Some(3), "size"));
        assert!(e.msg.contains("not monotone"), "{e}");

        let e = parse_cdf("0 0\n10 50\n20 99.5\n", "c.txt").unwrap_err();
        assert_eq!((e.line, e.field.as_str()), (Some(3), "cumulative"));
        assert!(e.msg.contains("99.5"), "{e}");

        let e = parse_cdf("0 0\n10 0.5\n20 0.9\n", "c.txt").unwrap_err();
        assert_eq!((e.line, e.field.as_str()), (Some(3), "cumulative"));
        assert!(
            e.msg
                .ends_with("must end at 1.0 (written as fractions) or 100 (as percent)"),
            "{e}"
        );

        let e = parse_cdf("0 0\n100 100 7\n", "c.txt").unwrap_err();
        assert_eq!((e.line, e.field.as_str()), (Some(2), "cumulative"));
        assert!(e.msg.contains("extra value '7'"), "{e}");

        let e = parse_cdf("# only one\n100 100\n", "c.txt").unwrap_err();
        assert_eq!(e.line, None);
        assert!(e.msg.contains("at least 2"), "{e}");

        let e = parse_cdf("0 0\n10\n", "c.txt").unwrap_err();
        assert_eq!((e.line, e.field.as_str()), (Some(2), "cumulative"));
    }

    #[test]
    fn load_reports_missing_file() {
        let e = load_cdf("/nonexistent/cdf.txt").unwrap_err();
        assert_eq!(e.file, "/nonexistent/cdf.txt");
        assert!(e.msg.contains("cannot read"));
    }
}
