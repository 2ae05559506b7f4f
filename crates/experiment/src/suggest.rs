//! The word meant by a misspelt one (a config key, a peer config key), so
//! that an error can say "did you mean ...?" instead of listing every key.

/// The candidate closest to `word`, compared without regard to case, if
/// it is close enough to be what was meant ([`close_enough`]); of equally
/// close ones, the first.
pub(crate) fn closest<'a>(
    word: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    let lower = word.to_ascii_lowercase();
    candidates
        .into_iter()
        .map(|c| (edit_distance(&lower, &c.to_ascii_lowercase()), c))
        .filter(|&(d, _)| close_enough(d, word))
        .min_by_key(|&(d, _)| d)
        .map(|(_, c)| c)
}

/// Whether `d` edits make `word` a likely typo: one edit in a short word,
/// two in a longer one. More would suggest unrelated words (a key of a
/// fork of the peer, say) as typos.
pub(crate) fn close_enough(d: usize, word: &str) -> bool {
    d <= if word.len() < 8 { 1 } else { 2 }
}

/// Edits (insert, delete, substitute, swap two neighbours) from `a` to
/// `b`: the optimal string alignment distance, so that a transposed pair
/// (`CC_MDOE`) counts as one typo.
pub(crate) fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    // d[i][j]: distance between a[..i] and b[..j].
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut v = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                v = v.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = v;
        }
    }
    d[a.len()][b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances() {
        assert_eq!(edit_distance("CC_MDOE", "CC_MODE"), 1);
        assert_eq!(edit_distance("RATE_AII", "RATE_AI"), 1);
        assert_eq!(edit_distance("", "ABC"), 3);
        assert_eq!(edit_distance("KMIN_MAP", "KMAX_MAP"), 2);
    }

    #[test]
    fn the_closest_word_if_any_is_close() {
        let keys = ["rate", "rp_timer", "hosts", "host_rate"];
        assert_eq!(closest("rp_timr", keys), Some("rp_timer"));
        assert_eq!(closest("hosst", keys), Some("hosts"));
        assert_eq!(closest("RATE", keys), Some("rate"));
        // Two edits in a short word, or nothing alike.
        assert_eq!(closest("rxtx", keys), None);
        assert_eq!(closest("zzzzzz", keys), None);
    }
}
