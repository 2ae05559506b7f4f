//! Byte-level mutations of an input, drawn from a seeded [`Rng`]: the same
//! seed gives the same mutants.

use engine::Rng;

/// Numbers at the edges of what parsers read: zero, signs, the limits of
/// integer types and of doubles, non-numbers, units alone.
pub const EDGE_VALUES: &[&str] = &[
    "0",
    "-0",
    "-1",
    "1",
    "0.0",
    "1e400",
    "-1e400",
    "1e-400",
    "4.9e-324",
    "1.7976931348623157e308",
    "nan",
    "NaN",
    "inf",
    "-inf",
    "255",
    "256",
    "65535",
    "65536",
    "2147483647",
    "2147483648",
    "4294967295",
    "4294967296",
    "9007199254740993",
    "9223372036854775807",
    "18446744073709551615",
    "18446744073709551616",
    "99999999999999999999999999999999999999",
    "0x10",
    "1_000",
    "+5",
    ".5",
    "5.",
    "1e",
    "Gbps",
    "us",
    "KB",
];

/// Bytes that mean something to the formats read: line and field
/// separators, quotes, brackets, comments, signs, a byte that is not UTF-8.
const SPECIAL: &[u8] = b"\n\r\t =\"'[]{},.#-+_:/\\\x00\xff\x80";

/// What a mutation did (for reports) and the mutant.
pub type Mutant = (String, Vec<u8>);

/// One to four mutations of `input`; `others` are inputs to splice from.
pub fn mutate(rng: &mut Rng, input: &[u8], others: &[&[u8]]) -> Mutant {
    let mut data = input.to_vec();
    let mut what = Vec::new();
    for _ in 0..1 + rng.below(4) {
        what.push(mutate_once(rng, &mut data, others));
    }
    (what.join("; "), data)
}

fn pick(rng: &mut Rng, n: usize) -> usize {
    rng.below(n.max(1) as u64) as usize
}

/// Spans of digits (with `.`, `-`, `e`, `+` inside a number).
fn numbers(data: &[u8]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < data.len() {
        if data[i].is_ascii_digit() {
            let s = i;
            while i < data.len() && (data[i].is_ascii_alphanumeric() || b".-+".contains(&data[i])) {
                i += 1;
            }
            out.push((s, i));
        } else {
            i += 1;
        }
    }
    out
}

/// Line starts, and the end.
fn line_spans(data: &[u8]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut s = 0;
    for (i, &b) in data.iter().enumerate() {
        if b == b'\n' {
            out.push((s, i + 1));
            s = i + 1;
        }
    }
    if s < data.len() {
        out.push((s, data.len()));
    }
    out
}

fn mutate_once(rng: &mut Rng, data: &mut Vec<u8>, others: &[&[u8]]) -> String {
    let len = data.len();
    match rng.below(12) {
        0 if len > 0 => {
            let i = pick(rng, len);
            let bit = rng.below(8);
            data[i] ^= 1 << bit;
            format!("bit {bit} of byte {i} flipped")
        }
        1 if len > 0 => {
            let i = pick(rng, len);
            data[i] = SPECIAL[pick(rng, SPECIAL.len())];
            format!("byte {i} set to {:#04x}", data[i])
        }
        2 => {
            let i = pick(rng, len + 1);
            let n = 1 + pick(rng, 8);
            let bytes: Vec<u8> = (0..n)
                .map(|_| {
                    if rng.below(2) == 0 {
                        SPECIAL[pick(rng, SPECIAL.len())]
                    } else {
                        b' ' + rng.below(95) as u8
                    }
                })
                .collect();
            data.splice(i..i, bytes);
            format!("{n} bytes inserted at {i}")
        }
        3 if len > 0 => {
            let i = pick(rng, len);
            let n = 1 + pick(rng, (len - i).min(16));
            data.drain(i..i + n);
            format!("{n} bytes deleted at {i}")
        }
        4 if len > 0 => {
            let i = pick(rng, len);
            let n = 1 + pick(rng, (len - i).min(64));
            let copy = data[i..i + n].to_vec();
            let at = pick(rng, len + 1);
            data.splice(at..at, copy);
            format!("{n} bytes at {i} copied to {at}")
        }
        5 => {
            let at = pick(rng, len + 1);
            data.truncate(at);
            format!("cut at byte {at}")
        }
        6 | 7 => {
            let nums = numbers(data);
            if nums.is_empty() {
                return mutate_once(rng, data, others);
            }
            let (s, e) = nums[pick(rng, nums.len())];
            let v = EDGE_VALUES[pick(rng, EDGE_VALUES.len())];
            data.splice(s..e, v.bytes());
            format!("number at byte {s} replaced by {v}")
        }
        8 if !others.is_empty() => {
            // Splice: this input up to a point, another from a point.
            let other = others[pick(rng, others.len())];
            let at = pick(rng, len + 1);
            let from = pick(rng, other.len() + 1);
            data.truncate(at);
            data.extend_from_slice(&other[from..]);
            format!("spliced at byte {at} with another input from byte {from}")
        }
        9 if !others.is_empty() => {
            // A line of another input inserted at a line start.
            let other = others[pick(rng, others.len())];
            let lines = line_spans(other);
            if lines.is_empty() {
                return mutate_once(rng, data, others);
            }
            let (s, e) = lines[pick(rng, lines.len())];
            let mut line = other[s..e].to_vec();
            if line.last() != Some(&b'\n') {
                line.push(b'\n');
            }
            let starts = line_spans(data);
            let at = starts.get(pick(rng, starts.len() + 1)).map_or(len, |l| l.0);
            data.splice(at..at, line);
            format!("a line of another input inserted at byte {at}")
        }
        10 => {
            let lines = line_spans(data);
            if lines.len() < 2 {
                return mutate_once(rng, data, others);
            }
            let (i, j) = (pick(rng, lines.len()), pick(rng, lines.len()));
            let mut ls: Vec<Vec<u8>> = lines.iter().map(|&(s, e)| data[s..e].to_vec()).collect();
            ls.swap(i, j);
            *data = ls.concat();
            format!("lines {} and {} swapped", i + 1, j + 1)
        }
        _ => {
            let lines = line_spans(data);
            if lines.is_empty() {
                return mutate_once(rng, data, others);
            }
            let i = pick(rng, lines.len());
            let (s, e) = lines[i];
            if rng.below(2) == 0 {
                data.drain(s..e);
                format!("line {} deleted", i + 1)
            } else {
                let copy = data[s..e].to_vec();
                data.splice(s..s, copy);
                format!("line {} duplicated", i + 1)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_seed_gives_the_same_mutants_and_they_differ() {
        let input = b"[run]\nname = \"a\"\nseed = 12\n".as_slice();
        let other = b"x = 1.5\n".as_slice();
        let draw = |seed| {
            let mut rng = Rng::stream(seed, 0, 0);
            (0..200)
                .map(|_| mutate(&mut rng, input, &[other]).1)
                .collect::<Vec<_>>()
        };
        let a = draw(1);
        assert_eq!(a, draw(1));
        assert_ne!(a, draw(2));
        let changed = a.iter().filter(|m| m.as_slice() != input).count();
        assert!(changed > 180, "{changed} of 200 mutants differ");
        let distinct: std::collections::HashSet<_> = a.iter().collect();
        assert!(distinct.len() > 150, "{} distinct", distinct.len());
    }
}
