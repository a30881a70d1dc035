//! The notes on a server's blocks by kind (docs/PRODUCT.md §8), each
//! with its own fix: the server card shows them, the messages end with
//! them.

use super::Lang;
use meshwatch::fleet::Transport;
use meshwatch::network::{any_named, places, BlockOnNetwork, VerifierOnNetwork};
use meshwatch::verdict::BlockKind;
use meshwatch::ServerId;

impl Lang {
    /// One note per kind of block in `blocks` (each verifier's, with its
    /// network), in the order ip, sni, throttled, protocol: where the
    /// address is blocked (and where `still_reached` still reaches it),
    /// where `snis` are filtered, where connections freeze, where a
    /// transport is blocked. `name` names a verifier without a network.
    pub fn block_notes(
        self,
        blocks: &[BlockOnNetwork],
        still_reached: &[VerifierOnNetwork],
        snis: &[&str],
        name: impl Fn(&ServerId) -> String,
    ) -> Vec<(BlockKind, String)> {
        let of = |keep: &dyn Fn(&BlockOnNetwork) -> bool| -> Vec<VerifierOnNetwork> {
            blocks
                .iter()
                .filter(|b| keep(b))
                .map(BlockOnNetwork::on_network)
                .collect()
        };
        let at = |on: &[VerifierOnNetwork]| self.list(&places(on, &name));
        let mut notes = Vec::new();
        let ip = of(&|b| b.kind == BlockKind::Ip);
        if !ip.is_empty() {
            // Where verifiers name their networks, the note says where the
            // address is blocked and where it is still reached (§6).
            let text = if any_named(&[&ip, still_reached]) {
                self.blocked_on_networks(&places(&ip, &name), &places(still_reached, &name))
            } else {
                let by: Vec<String> = ip.iter().map(|v| name(&v.verifier)).collect();
                self.blocked_by_verifier(&by)
            };
            notes.push((BlockKind::Ip, text));
        }
        let sni = of(&|b| b.kind == BlockKind::Sni);
        if !sni.is_empty() {
            let mut distinct: Vec<&str> = snis.to_vec();
            distinct.sort_unstable();
            distinct.dedup();
            notes.push((
                BlockKind::Sni,
                self.sni_filtered_on(&self.list(&distinct), &at(&sni)),
            ));
        }
        let frozen = of(&|b| b.kind == BlockKind::Throttled);
        let fewest = blocks
            .iter()
            .filter(|b| b.kind == BlockKind::Throttled)
            .filter_map(|b| b.frozen_after_bytes)
            .min();
        if !frozen.is_empty() {
            let kb = fewest.unwrap_or(0).div_ceil(1024);
            notes.push((BlockKind::Throttled, self.frozen_on(kb, &at(&frozen))));
        }
        for transport in [Transport::Quic, Transport::Tcp] {
            let on = of(&|b| b.kind == BlockKind::Protocol && b.transport == Some(transport));
            if !on.is_empty() {
                notes.push((
                    BlockKind::Protocol,
                    self.protocol_blocked_on(transport, &at(&on)),
                ));
            }
        }
        notes
    }
}
