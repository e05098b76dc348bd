import Testing
@testable import RotationEngine
import RotationProtocol

/// iio-sensor-proxy's orientation test vectors: 1 g reads 256 counts, scaled to m/s² by 9.81/256.
@Suite("iio-sensor-proxy test vectors")
struct IIOSensorProxyVectorTests {
    static let scale = 9.81 / 256
    static let vectors: [(counts: (Double, Double, Double), rotation: Rotation, name: String)] = [
        ((0, -256, 0), .normal, "normal"),
        ((-256, 0, 0), .rightUp, "right-up"),
        ((256, 0, 0), .leftUp, "left-up"),
        ((0, 256, 0), .bottomUp, "bottom-up"),
    ]

    func reading(_ c: (Double, Double, Double)) -> Vector3 {
        Vector3(c.0 * Self.scale, c.1 * Self.scale, c.2 * Self.scale)
    }

    @Test("a fresh engine held at each vector names its orientation within settleTime")
    func freshEngine() {
        for v in Self.vectors {
            var engine = OrientationEngine()
            var state: DeviceState?
            for i in 0...5 {
                if let s = engine.process(Sample(time: Double(i) * 0.01, acceleration: reading(v.counts))) { state = s }
            }
            #expect(state?.rotation == v.rotation, "\(v.counts)")
            #expect(state?.rotation?.name == v.name)
            #expect(state?.tilt == .vertical)
            #expect(state?.flat == false)
        }
    }

    @Test("one engine held at each vector in turn follows every one")
    func sequence() {
        var engine = OrientationEngine()
        var t = 0.0
        for v in Self.vectors + Self.vectors.reversed() {
            for _ in 0..<25 {
                _ = engine.process(Sample(time: t, acceleration: reading(v.counts)))
                t += 0.02
            }
            #expect(engine.state.rotation == v.rotation, "\(v.counts)")
        }
    }

    @Test("lying face up (0, 0, 256) is flat with no rotation")
    func faceUp() {
        var engine = OrientationEngine()
        let state = engine.process(Sample(time: 0, acceleration: reading((0, 0, 256))))
        #expect(state == DeviceState(rotation: nil, tilt: .faceUp, flat: true))
    }
}
