import Testing
@testable import GazeVision

@Suite("Available cores")
struct AvailableCoresTests {
    @Test("the cores a process may use are read from its affinity mask")
    func affinityMask() {
        #expect(AvailableCores.affinity(status: "Name:\tgazerec\nCpus_allowed:\t1\nCpus_allowed_list:\t0\n") == 1)
        #expect(AvailableCores.affinity(status: "Cpus_allowed:\t3\n") == 2)
        #expect(AvailableCores.affinity(status: "Cpus_allowed:\tffffffff,0000000f\n") == 36)
        #expect(AvailableCores.affinity(status: "Name:\tgazerec\n") == nil)
        #expect(AvailableCores.affinity(status: nil) == nil)
        #expect(AvailableCores.count >= 1)
    }
}
