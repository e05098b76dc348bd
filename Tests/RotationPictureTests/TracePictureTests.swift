import Foundation
import Testing
import TestSupport
@testable import RotationEngine
@testable import RotationPicture
import RotationProtocol

/// The picture drawn from samples and changes, read back as XML.
@Suite("Picture: samples and decisions drawn as SVG")
struct TracePictureTests {
    /// Samples at 50 Hz from `start` for `seconds`, reading `pose` (x, y, z) at each time.
    static func samples(from start: Double = 100, seconds: Double, pose: (Double) -> Vector3) -> [Sample] {
        stride(from: start, to: start + seconds, by: 0.02).map { Sample(time: $0, acceleration: pose($0 - start)) }
    }

    /// Ten seconds: upright, turned left-up at 3 s, laid flat from 5 s to 7 s, upright again at 8 s, starting at
    /// trace time 100 s; the changes as an engine would publish them, with their reasons.
    static let recording: PictureRecording = {
        let poses: [(until: Double, reads: Vector3)] = [(3, Vector3(0, -9.8, 0)), (5, Vector3(9.8, 0, 0)), (7, Vector3(0.3, 0, 9.8)),
                                                         (8, Vector3(9.8, 0, 0)), (.infinity, Vector3(0, -9.8, 0))]
        let samples = TracePictureTests.samples(seconds: 10) { t in poses.first { t < $0.until }!.reads }
        let turned = RotationReason(proposedBy: .diagonalHysteresis, passedBy: .turnEnding, heldBy: .settled, proposedAt: 103.1)
        let back = RotationReason(proposedBy: .diagonalHysteresis, passedBy: .settled, heldBy: .dwell, proposedAt: 108.0)
        let changes = [
            PictureRecording.Change(time: 100.3, state: DeviceState(rotation: .normal, tilt: .vertical),
                                    reason: ChangeReason(rotation: RotationReason(proposedBy: nil, passedBy: .settled))),
            PictureRecording.Change(time: 103.2, state: DeviceState(rotation: .leftUp, tilt: .vertical), reason: ChangeReason(rotation: turned)),
            PictureRecording.Change(time: 105.1, state: DeviceState(rotation: .leftUp, tilt: .faceUp, flat: true),
                                    reason: ChangeReason(flat: .flatEnterAngle)),
            PictureRecording.Change(time: 107.05, state: DeviceState(rotation: .leftUp, tilt: .tiltedUp),
                                    reason: ChangeReason(flat: .flatExitAngle)),
            PictureRecording.Change(time: 107.2, state: DeviceState(rotation: .leftUp, tilt: .vertical)),
            PictureRecording.Change(time: 108.15, state: DeviceState(rotation: .normal, tilt: .vertical), reason: ChangeReason(rotation: back)),
        ]
        return PictureRecording(title: "test", samples: samples, changes: changes)
    }()

    @Test("each rotation change is a numbered mark at the x of its time, within a pixel, read against the time axis's labels")
    func rotationMarksAtTheirTimes() throws {
        let picture = try PictureReading(svg: TracePicture.svg(Self.recording))
        let rotationMarks = picture.marks.filter { $0.parts.contains("rotation") }
        let times = [100.3, 103.2, 108.15]
        #expect(rotationMarks.count == times.count, "\(picture.marks)")
        for (mark, t) in zip(rotationMarks, times) {
            #expect(abs(mark.x - picture.x(seconds: t - 100)) < 1, "mark \(mark.number) at \(mark.x), its time \(t) at \(picture.x(seconds: t - 100))")
        }
        // The flat changes are marks too; the tilt alone is not numbered.
        #expect(picture.marks.map(\.number) == [1, 2, 3, 4, 5])
        #expect(picture.marks.filter { $0.parts == ["flat"] }.count == 2)
    }

    @Test("the flat spell is a band from the change that says flat to the one that says it is lifted")
    func flatBand() throws {
        let picture = try PictureReading(svg: TracePicture.svg(Self.recording))
        let bands = picture.all("flat-band")
        #expect(bands.count == 1)
        let band = try #require(bands.first)
        let left = try #require(band.number("x")), width = try #require(band.number("width"))
        #expect(abs(left - picture.x(seconds: 5.1)) < 1 && abs(left + width - picture.x(seconds: 7.05)) < 1, "\(band.attributes)")
    }

    @Test("the rotation lane holds each rotation published, in order, from its change to the next")
    func rotationLane() throws {
        let picture = try PictureReading(svg: TracePicture.svg(Self.recording))
        let segments = picture.all("rotation-segment").filter { $0.name == "rect" }
        #expect(segments.map { $0.attributes["data-value"] ?? "" } == ["none", "0", "90", "0"])
        let starts = segments.compactMap { $0.number("x") }
        for (x, t) in zip(starts, [0, 0.3, 3.2, 8.15]) { #expect(abs(x - picture.x(seconds: t)) < 1) }
    }

    @Test("each mark is labelled with the rule behind it, and the table says what each rule means")
    func rulesNamed() throws {
        let svg = TracePicture.svg(Self.recording)
        let picture = try PictureReading(svg: svg)
        #expect(picture.texts("mark-label") == ["settled", "turnEnding", "flatEnterAngle", "flatExitAngle", "dwell"])
        let table = picture.all("decisions").filter { $0.name == "text" }.map(\.text).joined(separator: "\n")
        #expect(table.contains("left-up 90°: turnEnding: a turn braking to rest inside the new quadrant (proposed 100 ms before by diagonalHysteresis; held last by settled)"))
        #expect(table.contains("normal 0°: dwell: its quadrant held for dwellTime"))
        #expect(table.contains("flat (face-up): flatEnterAngle"))
        #expect(table.contains("1 change of the tilt class or the hinge angle alone"))
    }

    @Test("a plot for each sensor the samples carry, and the posture lane and hinge plot only for a convertible")
    func plotsFollowTheSamples() throws {
        let plain = try PictureReading(svg: TracePicture.svg(Self.recording))
        #expect(Set(plain.elements.flatMap(\.classes).filter { ["accel", "gyro", "base", "hinge"].contains($0) }) == ["accel"])
        #expect(plain.all("posture-segment").isEmpty)
        var samples = Self.recording.samples
        for i in samples.indices {
            samples[i].angularVelocity = Vector3(0, 0, 0.1)
            samples[i].base = Vector3(0, 0, 9.8)
            if i % 5 == 0 { samples[i].hinge = 110 }
        }
        let fold = PictureRecording.Change(time: 100.5, state: DeviceState(fold: PostureState(posture: .laptop, hinge: 110)),
                                           reason: ChangeReason(posture: PostureReason(source: .hingeSensor, rule: .closedLeave)))
        let convertible = try PictureReading(svg: TracePicture.svg(PictureRecording(title: "fold", samples: samples, changes: [fold])))
        for plot in ["accel", "gyro", "base", "hinge"] { #expect(!convertible.all("plot").filter { $0.classes.contains(plot) }.isEmpty, "\(plot)") }
        #expect(convertible.all("posture-segment").compactMap { $0.attributes["data-value"] } == ["none", "laptop"])
        #expect(convertible.texts("mark-label") == ["closedLeave"])
    }

    @Test("a title with markup and control characters, and a recording with no samples, still make well-formed XML")
    func wellFormedWhateverTheInput() throws {
        let odd = PictureRecording(title: "a <b> & \"c\" 'd'\u{07}", samples: [], changes: [])
        let svg = TracePicture.svg(odd)
        let picture = try PictureReading(svg: svg)
        #expect(picture.elements.contains { $0.name == "text" && $0.text == "a <b> & \"c\" 'd'?" })
        #expect(picture.elements.contains { $0.text == "No samples were recorded." })
        #expect(picture.marks.isEmpty)
    }

    @Test("a long recording is thinned to a few points per pixel column, and a one-sample spike survives")
    func thinning() throws {
        var samples = Self.samples(seconds: 2000) { _ in Vector3(0, -9.8, 0) }
        samples[50_000].acceleration = Vector3(30, -9.8, 0)
        let picture = try PictureReading(svg: TracePicture.svg(PictureRecording(title: "long", samples: samples, changes: [])))
        let x = try #require(picture.all("accel-x").first { $0.name == "polyline" })
        let points = (x.attributes["points"] ?? "").split(separator: " ")
        #expect(points.count <= 4 * Int(TracePicture.width), "\(points.count) points for \(samples.count) samples")
        let ys = points.compactMap { $0.split(separator: ",").last.flatMap { Double($0) } }
        let top = try #require(ys.min()), bottom = try #require(ys.max())
        #expect(bottom - top > 50, "the spike to 30 m/s² is gone: y spans \(top)...\(bottom)")
    }

    @Test("readings far apart (the still pace) are joined faintly, so a move between two of them is not drawn as seen")
    func sparseReadingsFaint() throws {
        // Read every 0.4 s while still, then at 50 Hz from 2 s on, when the reading has jumped.
        let slow = stride(from: 100.0, to: 102, by: 0.4).map { Sample(time: $0, acceleration: Vector3(0, -9.8, 0)) }
        let fast = Self.samples(from: 102.1, seconds: 1) { _ in Vector3(9.8, 0, 0) }
        let picture = try PictureReading(svg: TracePicture.svg(PictureRecording(title: "paced", samples: slow + fast, changes: [])))
        let lines = picture.all("accel-x").filter { $0.name == "polyline" }
        let faint = lines.filter { $0.classes.contains("sparse") }
        // Four gaps of 0.4 s and the 0.5 s one before the fast reads; the fast reads one full line.
        #expect(faint.count == 5, "\(faint.map(\.attributes))")
        #expect(faint.allSatisfy { $0.attributes["stroke-opacity"] == "0.35" })
        #expect(lines.filter { !$0.classes.contains("sparse") }.count == 1)
        #expect(picture.all("accel-x").filter { $0.name == "circle" }.count == slow.count)
    }

    @Test("time ticks are round steps of 1, 2 or 5 times a power of ten, about as many as asked")
    func roundTicks() {
        #expect(LinearScale(domain: 0...35.6, from: 0, to: 1000).ticks(about: 12) == [0, 5, 10, 15, 20, 25, 30, 35])
        #expect(LinearScale(domain: 0...3.8, from: 0, to: 1000).ticks(about: 12) == [0, 0.5, 1, 1.5, 2, 2.5, 3, 3.5])
        #expect(LinearScale(domain: -9.7...9.9, from: 0, to: 100).ticks(about: 5) == [-5, 0, 5])
        #expect(LinearScale.niceDomain([-9.7, 9.9]) == -10...10)
    }

    @Test("an engine's own decisions of a turn and their reasons are marked where the engine published them")
    func engineDecisionsMarked() throws {
        let samples = Self.samples(seconds: 3) { t in
            let a = min(max((t - 1) / 0.5, 0), 1) * Double.pi / 2
            return Vector3(9.8 * Foundation.sin(a), -9.8 * Foundation.cos(a), 1)
        }
        var engine = OrientationEngine()
        var changes: [PictureRecording.Change] = []
        for s in samples {
            if let state = engine.process(s) { changes.append(.init(time: s.time, state: state, reason: engine.reason)) }
        }
        #expect(changes.compactMap(\.state.rotation) == [.normal, .leftUp])
        let picture = try PictureReading(svg: TracePicture.svg(PictureRecording(title: "turn", samples: samples, changes: changes)))
        let marks = picture.marks.filter { $0.parts.contains("rotation") }
        #expect(marks.count == 2)
        for (mark, change) in zip(marks, changes) { #expect(abs(mark.x - picture.x(seconds: change.time - 100)) < 1) }
        #expect(picture.texts("mark-label").last == changes.last?.reason.rotation?.rule.name)
    }
}
