//! The node under test: an overseer (Polkadot's `dummy_overseer_builder`)
//! in which approval-voting and approval-distribution (classic) or
//! approval-voting-parallel (parallel) are Polkadot's, the harness's mocks
//! answer chain API, runtime API, chain selection, the network bridge's
//! sending side, availability recovery and candidate validation, and every
//! other subsystem is a `DummySubsystem`. The keystore holds the node's
//! validator and assignment keys; the approval database is kvdb in memory
//! (one column, as subsystem-bench).

use crate::chain::Chain;
use crate::mocks::{self, Mock, Observed};
use crate::prepared::{Layout, Prepared, SLOT_DURATION_MILLIS};
use anyhow::{Context, Result};
use polkadot_approval_distribution::ApprovalDistribution;
use polkadot_node_core_approval_voting::{
    ApprovalVotingSubsystem, Config as ApprovalVotingConfig, RealAssignmentCriteria,
};
use polkadot_node_core_approval_voting_parallel::ApprovalVotingParallelSubsystem;
use polkadot_node_network_protocol::grid_topology::{SessionGridTopology, TopologyPeerInfo};
use polkadot_node_network_protocol::{self as net_protocol};
use polkadot_node_primitives::approval::time::Clock;
use polkadot_node_subsystem::messages::{
    ApprovalDistributionMessage, ApprovalVotingParallelMessage, NetworkBridgeEvent,
};
use polkadot_node_subsystem_util::database::Database;
use polkadot_overseer::{AllMessages, Handle, Overseer, SpawnGlue};
use polkadot_primitives::{ValidatorIndex, ASSIGNMENT_KEY_TYPE_ID, PARACHAIN_KEY_TYPE_ID};
use sc_keystore::LocalKeystore;
use sp_core::traits::SpawnNamed;
use sp_keystore::Keystore;
use std::sync::Arc;
use std::time::Duration;

/// The approval database's one column.
const DATA_COL: u32 = 0;

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn keystore(prepared: &Prepared) -> Result<Arc<LocalKeystore>> {
    let keystore = LocalKeystore::in_memory();
    let node = tranche_world::NODE_UNDER_TEST.0 as usize;
    let (validator_seed, assignment_seed) = prepared.chain.node_seeds;
    let keys = [
        (
            PARACHAIN_KEY_TYPE_ID,
            validator_seed,
            prepared.tranche.world.pairs[node].id().0,
        ),
        (
            ASSIGNMENT_KEY_TYPE_ID,
            assignment_seed,
            prepared.tranche.world.assignment_pairs[node].id().0,
        ),
    ];
    // `Keystore::insert` writes only to a keystore's folder: an in-memory
    // keystore drops the key without a word, and the node then has no
    // keys (no assignments, no approvals of its own). Keys made from the
    // seed are kept in memory; the public key is checked against the
    // session's.
    for (key_type, seed, public) in keys {
        let made = keystore
            .sr25519_generate_new(key_type, Some(&format!("0x{}", hex(&seed))))
            .map_err(|e| {
                anyhow::anyhow!("the keystore refused the node's {key_type:?} key: {e}")
            })?;
        if made.0 != public {
            anyhow::bail!("the node's {key_type:?} key from its seed is not the session's");
        }
    }
    Ok(Arc::new(keystore))
}

/// A network event for the layout's distribution subsystem.
pub fn to_node(
    layout: Layout,
    event: NetworkBridgeEvent<net_protocol::ApprovalDistributionMessage>,
) -> AllMessages {
    match layout {
        Layout::Classic => AllMessages::ApprovalDistribution(
            ApprovalDistributionMessage::NetworkBridgeUpdate(event),
        ),
        Layout::Parallel => AllMessages::ApprovalVotingParallel(
            ApprovalVotingParallelMessage::NetworkBridgeUpdate(event),
        ),
    }
}

/// The session's gossip grid: every validator with its peer and
/// discovery key, in the identity shuffle tranche's generation routes by.
pub fn topology(chain: &Chain) -> SessionGridTopology {
    let peers = chain
        .peer_ids
        .iter()
        .zip(&chain.discovery_keys)
        .enumerate()
        .map(|(i, (peer, key))| TopologyPeerInfo {
            peer_ids: vec![*peer],
            validator_index: ValidatorIndex(i as u32),
            discovery_id: key.clone(),
        })
        .collect::<Vec<_>>();
    SessionGridTopology::new((0..peers.len()).collect(), peers)
}

/// The overseer of the node under test and its handle; the overseer's
/// `run()` future is the caller's to spawn.
pub fn build<S>(
    prepared: &Prepared,
    layout: Layout,
    spawner: S,
    clock: Arc<dyn Clock + Send + Sync>,
    observed: &Arc<Observed>,
) -> Result<(
    Overseer<SpawnGlue<S>, mocks::AlwaysSupportsParachains>,
    Handle,
)>
where
    S: SpawnNamed + Clone + Send + Sync + 'static,
{
    let chain = prepared.chain.clone();
    let db = kvdb_memorydb::create(1);
    let db: Arc<dyn Database> =
        Arc::new(polkadot_node_subsystem_util::database::kvdb_impl::DbAdapter::new(db, &[]));
    let keystore = keystore(prepared)?;
    let config = || ApprovalVotingConfig {
        col_approval_data: DATA_COL,
        slot_duration_millis: SLOT_DURATION_MILLIS,
    };
    let chain_api = Mock(mocks::ChainApi {
        chain: chain.clone(),
        observed: observed.clone(),
    });
    let runtime_api = Mock(mocks::RuntimeApi {
        chain: chain.clone(),
        observed: observed.clone(),
    });
    let chain_selection = Mock(mocks::ChainSelection {
        chain: chain.clone(),
        observed: observed.clone(),
    });
    let bridge_tx = Mock(mocks::NetworkBridgeTx {
        observed: observed.clone(),
    });
    let builder = polkadot_overseer::dummy::dummy_overseer_builder(
        spawner.clone(),
        mocks::AlwaysSupportsParachains,
        None,
    )
    .context("building the overseer")?
    .replace_chain_api(move |_| chain_api)
    .replace_runtime_api(move |_| runtime_api)
    .replace_chain_selection(move |_| chain_selection)
    .replace_network_bridge_tx(move |_| bridge_tx)
    .replace_availability_recovery(|_| Mock(mocks::AvailabilityRecovery))
    .replace_candidate_validation(|_| Mock(mocks::CandidateValidation));

    let (overseer, raw_handle) = match layout {
        Layout::Classic => {
            let voting = ApprovalVotingSubsystem::with_config_and_clock(
                config(),
                db,
                keystore,
                Box::new(mocks::NeverSyncing),
                Default::default(),
                clock.clone(),
                Arc::new(SpawnGlue(spawner)),
                // As `ApprovalVotingSubsystem::with_config`: 16 retries,
                // half the 120 s checking timeout apart.
                16,
                Duration::from_secs(60),
            );
            let distribution = ApprovalDistribution::new_with_clock(
                Default::default(),
                SLOT_DURATION_MILLIS,
                clock,
                Arc::new(RealAssignmentCriteria {}),
            );
            builder
                .replace_approval_voting(move |_| voting)
                .replace_approval_distribution(move |_| distribution)
                .build()
        }
        Layout::Parallel => {
            let parallel = ApprovalVotingParallelSubsystem::with_config_and_clock(
                config(),
                db,
                keystore,
                Box::new(mocks::NeverSyncing),
                Default::default(),
                clock,
                SpawnGlue(spawner),
                None,
            );
            builder
                .replace_approval_voting_parallel(move |_| parallel)
                .build()
        }
    }
    .context("starting the overseer")?;
    Ok((overseer, Handle::new(raw_handle)))
}
