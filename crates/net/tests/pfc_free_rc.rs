//! The PFC-free transport's RC mode (`qp_type = "rc"`, Bifröst §3.4.2:
//! hardware RC QPs, go-back-N with retry count 2, software help) in whole
//! runs: delivery exactly once under random loss, the NIC's go-back-N
//! seen in its counters, the move to a backup QP when the retries run
//! out, and no software ACK on the hosts' CPU.

use engine::Time;
use rdmasim_net::transport::pfc_free::{PfcFreeConfig, QpType};
use rdmasim_net::{RunResults, Transport};

mod lossy_path;
use lossy_path::{flow, net};

/// One connection of `size` bytes on the lossy path (the single path of
/// Bifröst Fig. 7) with `c`, on hosts of `cores` cores.
fn run(c: PfcFreeConfig, size: u64, loss: f64, cores: u32) -> RunResults {
    let mut cfg = net(Transport::PfcFree(c), loss);
    cfg.host.cores = cores;
    let r = lossy_path::run(vec![flow(0, size, Time::ZERO)], cfg);
    assert_eq!(r.unfinished(), 0, "the flow finishes");
    assert!(r.delivery_failures.is_empty(), "{:?}", r.delivery_failures);
    r
}

fn rc(message: u64) -> PfcFreeConfig {
    PfcFreeConfig {
        message,
        qp_type: QpType::Rc,
        ..PfcFreeConfig::default()
    }
}

fn gbps(r: &RunResults) -> f64 {
    let f = &r.flows[0];
    f.size as f64 * 8.0 / (f.end.unwrap() - f.start).ps() as f64 * 1000.0
}

/// 1/1024 random loss: every message arrives once (the end-of-run check),
/// each gap is NAKed once and recovered by go-back-N, the software sees no
/// loss and sends no ACK of its own, and the goodput stays within 85% of
/// the loss-free run's at 1 KB, 64 KB and 1 MB requests.
#[test]
fn rc_mode_recovers_random_loss_by_go_back_n_and_delivers_once() {
    for (request, n) in [(1024u64, 4096u64), (64 * 1024, 256), (1 << 20, 24)] {
        let size = request * n;
        let clean = run(rc(request), size, 0.0, 0);
        let t = clean.pfc_free.unwrap();
        assert_eq!(t.rc.unwrap().go_backs, 0, "{request}: nothing to resend");
        let lossy = run(rc(request), size, 1.0 / 1024.0, 0);
        let t = lossy.pfc_free.unwrap();
        let hw = t.rc.expect("RC counters");
        assert!(hw.naks > 0 && hw.go_backs > 0, "{request}: {hw:?}");
        assert!(hw.discarded > 0 && hw.resent_bytes > 0, "{request}: {hw:?}");
        assert_eq!(t.receiver.messages, n, "{request}: every message once");
        assert_eq!(t.receiver.bytes, size);
        assert_eq!(t.receiver.acks + t.sender.acks, 0, "no software ACK");
        assert_eq!(t.sender.lost_by_ack, 0);
        let (g0, g1) = (gbps(&clean), gbps(&lossy));
        assert!(
            g1 >= 0.85 * g0,
            "{request}: {g1:.2} Gb/s with loss against {g0:.2}"
        );
    }
}

/// Loss so heavy that a packet and both of its resends are sometimes lost:
/// the QP goes to the error state, the software moves the connection to a
/// backup QP and resends there, and still every message arrives once.
#[test]
fn out_of_retries_the_software_moves_to_a_backup_qp() {
    let size = 4 << 20;
    let r = run(rc(64 * 1024), size, 0.2, 0);
    let t = r.pfc_free.unwrap();
    let hw = t.rc.unwrap();
    assert!(hw.qp_errors > 0, "{hw:?}");
    assert!(t.sender.qp_switches >= hw.qp_errors, "{t:?}");
    assert_eq!(t.receiver.bytes, size);
}

/// With the host CPU model, RC's ACKs are the NICs': no host builds or
/// parses one (UC's are software ACKs, and cost a core).
#[test]
fn rc_acks_cost_no_host_cpu() {
    let size = 64 * 1024 * 64;
    let r = run(rc(64 * 1024), size, 0.0, 1);
    for h in &r.host_cpu {
        assert_eq!(h.totals.acks_built + h.totals.acks_parsed, 0);
    }
    let sender = r.host_cpu.iter().find(|h| h.node == 0).unwrap();
    assert!(sender.totals.posts > 0 && sender.totals.cqes > 0);
    let uc = run(
        PfcFreeConfig {
            qp_type: QpType::Uc,
            ..rc(64 * 1024)
        },
        size,
        0.0,
        1,
    );
    let uc_sender = uc.host_cpu.iter().find(|h| h.node == 0).unwrap();
    assert!(uc_sender.totals.acks_parsed > 0);
    assert!(
        uc_sender.totals.busy_ps > sender.totals.busy_ps,
        "UC's ACKs cost the sender's core"
    );
}
