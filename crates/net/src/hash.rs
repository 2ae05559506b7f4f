//! ECMP hashing as the peer does it (HPCC sim `SwitchNode::GetOutDev` and
//! `EcmpHash`): 32-bit MurmurHash3 over (sip, dip, sport | dport << 16),
//! seeded per switch with its node id.

/// MurmurHash3 (x86, 32-bit) of `words` as little-endian bytes.
pub fn murmur3_32(words: &[u32], seed: u32) -> u32 {
    const C1: u32 = 0xcc9e_2d51;
    const C2: u32 = 0x1b87_3593;
    let mut h = seed;
    for &w in words {
        let mut k = w.wrapping_mul(C1);
        k = k.rotate_left(15);
        k = k.wrapping_mul(C2);
        h ^= k;
        h = h.rotate_left(13);
        h = h.wrapping_mul(5).wrapping_add(0xe654_6b64);
    }
    h ^= (words.len() * 4) as u32;
    h ^= h >> 16;
    h = h.wrapping_mul(0x85eb_ca6b);
    h ^= h >> 13;
    h = h.wrapping_mul(0xc2b2_ae35);
    h ^= h >> 16;
    h
}

/// The peer's host address for node `id`: 11.x.y.1 with x.y = id (HPCC sim
/// `third.cc` `node_id_to_ip`).
pub fn host_ip(id: u32) -> u32 {
    0x0b00_0001 + ((id / 256) << 16) + ((id % 256) << 8)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_murmur3_vectors() {
        // Reference values of MurmurHash3_x86_32.
        assert_eq!(murmur3_32(&[], 0), 0);
        assert_eq!(murmur3_32(&[], 1), 0x514E_28B7);
        // "test" = 0x74736574 little-endian, seed 0 → 0xba6bd213.
        assert_eq!(murmur3_32(&[0x7473_6574], 0), 0xBA6B_D213);
    }

    #[test]
    fn host_ips_match_the_peer() {
        assert_eq!(host_ip(238), 0x0b00_ee01);
        assert_eq!(host_ip(256), 0x0b01_0001);
    }
}
