//! The model's use of the cost table: the table itself (its kinds of
//! work, defaults and YAML file) is read by the configuration
//! (`tranche_config::costs`, re-exported here); this module adds what
//! needs the protocol's types, the cost of checking a certificate of a
//! given kind.

pub use tranche_config::costs::*;
use tranche_primitives::AssignmentCertKind;

/// The first-seen check of a certificate of `kind`.
pub fn assignment(costs: &CostTable, kind: &AssignmentCertKind) -> u64 {
    use AssignmentCertKind as K;
    match kind {
        K::RelayVRFModulo { .. } => costs.assignment_modulo(),
        K::RelayVRFModuloCompact { .. } => costs.assignment_compact(),
        K::RelayVRFDelay { .. } => costs.assignment_delay(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_certificate_costs_what_its_kind_does() {
        use tranche_primitives::{AssignmentCertKind as K, CoreBitfield, CoreIndex};
        let t = CostTable::default()
            .with(CostKind::AssignmentModulo, 1)
            .with(CostKind::AssignmentCompact, 2)
            .with(CostKind::AssignmentDelay, 3);
        assert_eq!(assignment(&t, &K::RelayVRFModulo { sample: 0 }), 1);
        let core_bitfield = CoreBitfield::from_index(0);
        assert_eq!(
            assignment(&t, &K::RelayVRFModuloCompact { core_bitfield }),
            2
        );
        let core_index = CoreIndex(1);
        assert_eq!(assignment(&t, &K::RelayVRFDelay { core_index }), 3);
    }
}
