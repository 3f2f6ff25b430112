import RollcallClient

extension BenchRunner {
    /// Compares the observers' final rosters with each other and with what the participants last asked for.
    ///
    /// The reference is the roster most observers hold at the highest sequence number; an observer converged when
    /// it holds a roster at that sequence number with the same checksum, and the reference itself is checked
    /// against every participant's last requested flags and `mid`.
    static func convergence(_ drivers: [RosterDriver]) -> BenchReport.Convergence {
        var result = BenchReport.Convergence()
        // Checksums are computed once per distinct roster value on each loop.
        var finals: [(sequence: UInt64, checksum: String)?] = []
        var rosters: [String: (count: Int, store: RosterStore)] = [:]
        for driver in drivers {
            var checksums: [Int: String] = [:]
            for observer in driver.observers {
                guard let store = observer.store else {
                    finals.append(nil)
                    continue
                }
                let checksum = checksums[observer.stateID] ?? store.checksum
                checksums[observer.stateID] = checksum
                finals.append((store.sequence, checksum))
                rosters[checksum, default: (0, store)].count += 1
            }
        }
        guard
            let reference = rosters.values.max(by: { ($0.store.sequence, $0.count) < ($1.store.sequence, $1.count) })?
                .store
        else {
            result.divergent = finals.count
            return result
        }
        let referenceChecksum = reference.checksum
        result.sequence = reference.sequence
        result.checksum = referenceChecksum
        for final in finals {
            if let final, final.sequence == reference.sequence, final.checksum == referenceChecksum {
                result.converged += 1
            } else {
                result.divergent += 1
            }
        }
        result.distinctRosters = rosters.count
        for driver in drivers {
            for intended in driver.intendedStates {
                guard let mirrored = reference[intended.uid] else {
                    result.stateMismatches += 1
                    continue
                }
                let flags = [mirrored.audioMuted, mirrored.handRaised, mirrored.videoPaused, mirrored.presenting]
                if flags != intended.flags || (intended.mid != nil && mirrored.mid != intended.mid) {
                    result.stateMismatches += 1
                }
            }
        }
        return result
    }
}
