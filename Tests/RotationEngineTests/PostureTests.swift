import Testing
@testable import RotationEngine
import RotationProtocol

/// The postures an estimate went through once it had one, each once, in order, with the time each began.
private func postures(_ samples: [Sample]) -> [(time: Double, posture: Posture?)] {
    var estimate = PostureEstimate()
    var out: [(time: Double, posture: Posture?)] = []
    for s in samples {
        let p = estimate.update(s).posture
        if out.isEmpty && p == nil { continue }
        if out.last.map({ $0.posture != p }) ?? true { out.append((s.time, p)) }
    }
    return out
}

/// The estimate's state after every sample.
private func states(_ samples: [Sample]) -> [(time: Double, state: PostureState)] {
    var estimate = PostureEstimate()
    return samples.map { ($0.time, estimate.update($0)) }
}

@Suite("Hinge geometry")
struct HingeGeometryTests {
    @Test("the angle between the panels reads the same however the base is turned about the hinge",
          arguments: [10.0, 60, 110, 180, 250, 300, 350], [0.0, 30, 90, 160, 270])
    func angleFromBothAccelerometers(hinge: Double, baseTilt: Double) throws {
        let (lid, base) = FoldTrace.readings(hinge: hinge, baseTilt: baseTilt, hingeTilt: 20)
        let angle = try #require(HingeGeometry.angle(lid: lid, base: base, minimumAcross: 0.4))
        #expect(abs(angle - hinge) < 1e-6)
    }

    @Test("with the hinge pointing at the ground the angle cannot be read")
    func hingeUprightUnreadable() {
        let (lid, base) = FoldTrace.readings(hinge: 110, baseTilt: 0, hingeTilt: 80)
        #expect(HingeGeometry.angle(lid: lid, base: base, minimumAcross: 0.4) == nil)
    }

    @Test("a reading near closed or folded back is put on the side the hinge was last seen on")
    func ambiguityResolvedByHistory() {
        #expect(HingeGeometry.resolve(355, previous: 40, stableRange: 20...340) == 0)
        #expect(HingeGeometry.resolve(5, previous: 300, stableRange: 20...340) == 360)
        #expect(HingeGeometry.resolve(350, previous: 330, stableRange: 20...340) == 350)
        #expect(HingeGeometry.resolve(10, previous: 30, stableRange: 20...340) == 10)
        #expect(HingeGeometry.resolve(200, previous: 10, stableRange: 20...340) == 200)
    }
}

@Suite("Posture")
struct PostureTests {
    @Test("opened from closed, the device is a laptop with the hinge angle published")
    func openingFromClosed() throws {
        var trace = FoldTrace(hinge: 2)
        trace.hold(2)
        trace.move(to: 110, over: 1.2)
        trace.hold(2)
        let seen = postures(trace.samples)
        #expect(seen.map(\.posture) == [.closed, .laptop])
        let opened = try #require(seen.last?.time)
        #expect(opened < 3.2 + 0.5)
        let last = try #require(states(trace.samples).last?.state)
        #expect(abs(try #require(last.hinge) - 110) <= 5)
    }

    @Test("folded through a stand to a tablet and back, each posture comes once, in order")
    func foldThroughStandToTablet() {
        var trace = FoldTrace(hinge: 110)
        trace.hold(2)
        // Base face down, the display stood up: the base turned over as the hinge opens past flat.
        trace.move(to: 280, baseTilt: 180, over: 2)
        trace.hold(2)
        trace.move(to: 358, baseTilt: 180, over: 1.5)
        trace.hold(2)
        trace.move(to: 110, baseTilt: 0, over: 3)
        trace.hold(2)
        #expect(postures(trace.samples).map(\.posture) == [.laptop, .stand, .tablet, .stand, .laptop])
    }

    @Test("a tent stands on both edges with the display upside down, and the display's rotation is 180")
    func tent() throws {
        var trace = FoldTrace(hinge: 110, baseTilt: 0)
        trace.hold(2)
        // Opened past flat and stood on both edges: the base 60° up from face up, the display upside down.
        trace.move(to: 295, baseTilt: 60, over: 2)
        trace.hold(3)
        let seen = postures(trace.samples).map(\.posture)
        #expect(seen.first == .laptop && seen.last == .tent && seen.count <= 3, "\(seen)")
        var engine = OrientationEngine()
        for s in trace.samples { _ = engine.process(s) }
        #expect(engine.state.rotation == .bottomUp)
        #expect(engine.state.fold.posture == .tent)
    }

    @Test("closed and folded back read alike: only the way the device got there tells them apart")
    func closedAndFoldedBackReadAlike() throws {
        var closing = FoldTrace(hinge: 110)
        closing.hold(2)
        closing.move(to: 1, over: 1.5)
        closing.hold(2)
        var folding = FoldTrace(hinge: 110)
        folding.hold(2)
        folding.move(to: 280, baseTilt: 180, over: 2)
        folding.move(to: 359, baseTilt: 0, over: 2)
        folding.hold(2)
        let a = try #require(closing.samples.last), b = try #require(folding.samples.last)
        #expect((a.acceleration - b.acceleration).length < 0.5)
        #expect((try #require(a.base) - (try #require(b.base))).length < 0.5)
        #expect(postures(closing.samples).last?.posture == .closed)
        #expect(postures(folding.samples).last?.posture == .tablet)
        #expect(states(folding.samples).last?.state.hinge.map { $0 >= 350 } == true)
    }

    @Test("held as a book with the hinge upright, the posture is kept and the hinge is null, then read again")
    func hingeUprightHeld() throws {
        var trace = FoldTrace(hinge: 300, baseTilt: 180)
        trace.hold(2)
        trace.move(hingeTilt: 85, over: 1)
        trace.hold(2)
        let upright = states(trace.samples)
        let before = try #require(upright.first { $0.time > 1.5 }?.state)
        let held = try #require(upright.last?.state)
        #expect(before.posture == .stand)
        #expect(held.posture == .stand)
        #expect(held.hinge == nil)
        #expect(held.heldHinge.map { abs($0 - 300) <= 5 } == true)
        trace.move(hingeTilt: 0, over: 1)
        trace.hold(1)
        let back = try #require(states(trace.samples).last?.state)
        #expect(back.hinge.map { abs($0 - 300) <= 5 } == true)
    }

    @Test("carried and shaken, the posture and the hinge are held")
    func shakenHeld() {
        var trace = FoldTrace(hinge: 110)
        trace.hold(2)
        trace.shake(4, amplitude: 4)
        trace.hold(1)
        let seen = states(trace.samples).filter { $0.time > 1 }
        #expect(Set(seen.map(\.state.posture)) == [.laptop])
        let hinges = seen.compactMap(\.state.hinge)
        #expect(hinges.allSatisfy { abs($0 - 110) <= 5 })
    }

    @Test("a laptop opened flat whose hinge wobbles at the fold threshold stays a laptop")
    func wobbleAtFoldThresholdNoFlap() {
        var trace = FoldTrace(hinge: 150)
        trace.hold(2)
        trace.move(to: 200, over: 1)
        trace.wobble(8, between: 192, and: 207, period: 0.8)
        #expect(postures(trace.samples).map(\.posture) == [.laptop])
    }

    @Test("a tablet whose hinge wobbles at the tablet threshold does not flap")
    func wobbleAtTabletThresholdNoFlap() {
        var trace = FoldTrace(hinge: 110)
        trace.hold(2)
        trace.move(to: 330, baseTilt: 180, over: 2)
        trace.hold(1)
        let folded = trace.time
        trace.wobble(8, between: 310, and: 330, period: 1)
        let seen = postures(trace.samples)
        #expect(seen.last?.posture == .tablet)
        #expect(seen.filter { $0.time >= folded }.isEmpty, "\(seen)")
    }

    @Test("a hinge wobbling about closed does not flap")
    func wobbleAtClosedNoFlap() {
        var trace = FoldTrace(hinge: 2)
        trace.hold(2)
        trace.wobble(6, between: 12, and: 30, period: 0.7)
        #expect(postures(trace.samples).map(\.posture) == [.closed])
    }

    @Test("a detachable without its base is a tablet, and a laptop again once the base is back")
    func detachedBaseIsTablet() {
        var trace = FoldTrace(hinge: 110)
        trace.hold(2)
        trace.baseAttached = false
        trace.hold(3)
        trace.baseAttached = true
        trace.hold(2)
        let seen = postures(trace.samples)
        #expect(seen.map(\.posture) == [.laptop, .tablet, .laptop])
        if seen.count == 3 {
            #expect(seen[1].time - 2 <= PostureLimits.baseLostAfter + 0.1)
        }
        let detached = states(trace.samples).first { $0.time > 4 }?.state
        #expect(detached?.hinge == nil)
    }

    @Test("a gap with no samples at all (the display asleep on its motion event) does not detach the base: the first samples after it, before the base's next reading, keep the laptop")
    func gapWithoutSamplesKeepsTheBase() {
        var trace = FoldTrace(hinge: 110)
        trace.hold(2)
        // The last sample before the gap without a base reading (read every 0.1 s, beside samples at 50 Hz);
        // three seconds with no sample; then the display's first samples, the base read again only 0.1 s later.
        var samples = trace.samples
        let template = samples[samples.count - 1]
        var last = template
        last.time += 0.02
        last.base = nil
        samples.append(last)
        let resumed = last.time + 3
        for i in 0..<20 {
            var s = template
            s.time = resumed + Double(i) * 0.02
            if i < 5 { s.base = nil }
            samples.append(s)
        }
        #expect(postures(samples).map(\.posture) == [.laptop], "\(postures(samples))")
        // Samples that keep coming without the base for longer than baseLostAfter still mean it is gone.
        for _ in 0..<100 {
            var s = samples[samples.count - 1]
            s.time += 0.02
            s.base = nil
            samples.append(s)
        }
        #expect(postures(samples).map(\.posture) == [.laptop, .tablet], "\(postures(samples))")
    }

    @Test("without a base sensor the switches tell: tablet mode, then the lid closed")
    func switchesAlone() {
        var samples: [Sample] = []
        for i in 0..<300 {
            var s = Sample(time: Double(i) / 50, acceleration: Vector3(0, -9.8, 0.5))
            s.tabletMode = i >= 100
            s.lidClosed = i >= 200
            samples.append(s)
        }
        #expect(postures(samples).map(\.posture) == [.laptop, .tablet, .closed])
    }

    @Test("a lid switch alone gives closed while shut and laptop once opened, not closed held")
    func lidSwitchAlone() {
        var samples: [Sample] = []
        for i in 0..<300 {
            var s = Sample(time: Double(i) / 50, acceleration: Vector3(0, -9.8, 0.5))
            s.lidClosed = i >= 100 && i < 200
            samples.append(s)
        }
        #expect(postures(samples).map(\.posture) == [.laptop, .closed, .laptop])
    }

    @Test("a plain tablet, with nothing that reads a fold, has no posture")
    func plainTabletNoPosture() {
        var engine = OrientationEngine()
        for i in 0..<200 { _ = engine.process(Sample(time: Double(i) / 50, acceleration: Vector3(0, -9.8, 0.5))) }
        #expect(engine.state.fold == .unknown)
    }

    @Test("a hinge sensor is trusted before the accelerometers")
    func hingeSensorFirst() throws {
        var trace = FoldTrace(hinge: 110)
        trace.hingeSensor = 330
        trace.hold(2)
        let last = try #require(states(trace.samples).last?.state)
        #expect(last.posture == .tablet)
        #expect(last.hinge == 330)
    }

    @Test("a hinge sensor read with one sample in five, as live (at most ten times a second, the base with it), decides the angle between its readings too: the accelerometers, which read 12° more, do not take over there, and the published hinge holds still")
    func sparseHingeSensorHolds() throws {
        var trace = FoldTrace(hinge: 122)
        trace.hold(3)
        let samples = trace.samples.enumerated().map { i, s in
            var s = s
            s.hinge = i % 5 == 0 ? 110 : nil
            if i % 5 != 0 { s.base = nil }
            return s
        }
        let seen = states(samples).map(\.state.hinge)
        let changes = zip(seen, seen.dropFirst()).filter { $0.0 != $0.1 }.map(\.1)
        #expect(seen.first == 110 && changes.isEmpty, "the hinge published at each change after \(String(describing: seen.first)): \(changes)")
    }

    @Test("a sensor whose length differs from pose to pose (offsets) still has its fold read")
    func flawedSensorFollowed() throws {
        var trace = FoldTrace(hinge: 2)
        trace.hold(2)
        trace.move(to: 115, over: 1.2)
        trace.hold(3)
        // An offset of 1 m/s² on the lid's y axis: closed it reads about 9.8, opened about 10.8 (10 % more).
        let flawed = trace.samples.map { s in
            var s = s
            s.acceleration = s.acceleration + Vector3(0, -1, 0)
            return s
        }
        let seen = postures(flawed)
        #expect(seen.map(\.posture) == [.closed, .laptop])
        #expect(try #require(seen.last?.time) < 4.5)
    }

    @Test("the engine publishes a change of posture alone as one state, and a still fold as none")
    func enginePublishesPostureChange() {
        var trace = FoldTrace(hinge: 2, baseTilt: 0)
        trace.hold(2)
        trace.move(to: 110, baseTilt: 0, over: 1)
        trace.hold(3)
        var engine = OrientationEngine()
        var published: [DeviceState] = []
        for s in trace.samples { if let out = engine.process(s) { published.append(out) } }
        let fold = published.map(\.fold.posture)
        #expect(fold.filter { $0 == .laptop }.count >= 1)
        // Each distinct posture appears in one run: no publishing back and forth.
        var runs: [Posture?] = []
        for p in fold where runs.last != p { runs.append(p) }
        #expect(runs.compactMap { $0 } == [.closed, .laptop])
        // Still for the last two seconds: nothing more published.
        #expect(published.last.map { _ in true } == true)
        let lateChanges = zip(published, published.dropFirst()).filter { $0.1 != $0.0 }.count
        #expect(lateChanges == published.count - 1)
        #expect(engine.isQuiet)
    }
}

/// The rules that keep a shaken or nearly upright device's readings from misplacing the fold
/// (`Docs/posture.md`, "The rules against misreadings"): each with synthetic samples that fail without it, and
/// what the rule must not keep out.
@Suite("Posture rules")
struct PostureRuleTests {
    /// A laptop folded through a stand back into a tablet at 352°, sampled `rate` times a second.
    static func foldedBack(rate: Double) -> FoldTrace {
        var trace = FoldTrace(hinge: 110)
        trace.rate = rate
        trace.hold(1)
        trace.move(to: 280, baseTilt: 180, over: 2)
        trace.move(to: 352, baseTilt: 0, over: 1.5)
        trace.hold(2)
        return trace
    }

    /// `foldedBack`, held 3 s more, its last sample before those replaced by a shaken reading of 72°: the lid 8 %
    /// and the base 16 % off 1 g, so the side still follows it and the steady reading pauses.
    static func tabletWithOneReadingAcrossTheSeam(rate: Double) -> [Sample] {
        var trace = foldedBack(rate: rate)
        let index = trace.samples.count - 1
        trace.hold(3)
        var samples = trace.samples
        let (lid, base) = FoldTrace.readings(hinge: 72, baseTilt: 0, hingeTilt: 0)
        samples[index].acceleration = lid * 1.08
        samples[index].base = base * 0.84
        return samples
    }

    @Test("noSeamJump: one shaken reading across the seam (352°, then 72°) leaves a tablet a tablet, never closed",
          arguments: [10.0, 50])
    func oneReadingAcrossTheSeam(rate: Double) {
        let seen = postures(Self.tabletWithOneReadingAcrossTheSeam(rate: rate)).map(\.posture)
        #expect(seen.last == .tablet)
        #expect(!seen.contains(.closed), "\(seen)")
        #expect(seen.filter { $0 == .tablet }.count == 1, "\(seen)")
    }

    @Test("noSeamJump: a fold that went round while nothing was read (the samples stopped) is still taken, within 0.5 s of the samples' return")
    func foldRoundDuringAGap() throws {
        let before = Self.foldedBack(rate: 10)
        var after = FoldTrace(hinge: 100)
        after.rate = 10
        after.hold(2)
        let resumed = before.time + 5
        let samples = before.samples + after.samples.map { s in
            var s = s
            s.time += resumed
            return s
        }
        let seen = postures(samples)
        #expect(seen.suffix(2).map(\.posture) == [.tablet, .laptop], "\(seen)")
        let opened = try #require(seen.last?.time)
        #expect(opened - resumed <= 0.5)
        #expect(states(samples).last?.state.hinge.map { abs($0 - 100) <= 5 } == true)
    }

    @Test("stillRest: a first reading made while moving (10 % short of 1 g) is not what the sensors read at rest: the fold is read as soon as from a still start")
    func firstReadingWhileMoving() throws {
        var trace = FoldTrace(hinge: 110)
        trace.hold(2)
        var moving = trace.samples
        moving[0].acceleration = moving[0].acceleration * 0.9
        moving[0].base = moving[0].base.map { $0 * 0.9 }
        let still = try #require(postures(trace.samples).first)
        let started = try #require(postures(moving).first)
        #expect(started.posture == .laptop)
        #expect(started.time <= still.time + 0.05, "still start at \(still.time) s, moving start at \(started.time) s")
    }

    @Test("firstReadingFolded: a device folded back into a tablet before anything was read is a tablet from its first posture, no laptop first")
    func startFoldedBack() {
        var trace = FoldTrace(hinge: 330, baseTilt: 180)
        trace.hold(2)
        #expect(postures(trace.samples).map(\.posture) == [.tablet])
    }
}

@Suite("Camera direction")
struct CameraDirectionTests {
    @Test("lid cameras face the person and away; base cameras follow the fold",
          arguments: [
            (CameraFacing.front, CameraPanel.lid, 110.0, false, CameraDirection.forward),
            (.back, .lid, 110, false, .backward),
            (.front, .lid, 0, true, .covered),
            (.back, .lid, 0, true, .backward),
            (.front, .base, 110, false, .sideways),
            (.front, .base, 180, false, .forward),
            (.front, .base, 360, false, .backward),
            (.back, .base, 360, false, .forward),
            (.front, .base, 0, true, .covered),
            (.back, .base, 300, false, .sideways),
            (.front, .base, 140, false, .forward),
          ])
    func direction(facing: CameraFacing, panel: CameraPanel, hinge: Double, closed: Bool, want: CameraDirection) {
        #expect(CameraDirection.of(facing: facing, panel: panel, hinge: hinge, closed: closed) == want)
    }

    @Test("an external camera, and a base camera with no hinge known, have no direction")
    func noDirection() {
        #expect(CameraDirection.of(facing: .external, panel: .lid, hinge: 110, closed: false) == nil)
        #expect(CameraDirection.of(facing: .front, panel: .base, hinge: nil, closed: false) == nil)
    }

    @Test("a base camera turns its frames by the base's rotation, a lid camera by the display's")
    func baseCameraRotation() {
        let state = PostureState(posture: .tent, hinge: 290, heldHinge: 290, baseRotation: .normal)
        let base = Camera(name: "world", facing: .front, mount: 0, panel: .base)
        let lid = Camera(name: "front", facing: .front, mount: 0)
        #expect(state.rotation(of: base, display: .bottomUp) == .normal)
        #expect(state.rotation(of: lid, display: .bottomUp) == .bottomUp)
    }
}
