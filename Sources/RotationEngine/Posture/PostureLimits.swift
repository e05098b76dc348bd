/// The posture's thresholds, each with the reason for it.
public enum PostureLimits {
    /// Seconds of smoothing on each panel's reading: a hand's tremor and a sensor's noise average out, and a fold
    /// still shows within a few tenths of a second.
    public static let smoothingTime = 0.12
    /// A reading whose length is off what the sensor reads at rest by more than this share is acceleration, not
    /// gravity (ChromeOS ignores readings 1 m/s², about 10 %, off 1 g).
    public static let restDeviation = 0.1
    /// Seconds over which what a sensor reads at rest follows its steady readings.
    public static let restTime = 2.0
    /// A reading whose length is within this share of 1 g of the recent lengths' average is calm: noise, not
    /// motion (a shake or a step changes the length by more).
    public static let calmDeviation = 0.08
    /// Seconds over which the recent lengths' average follows the readings.
    public static let calmAveraging = 0.3
    /// Seconds of calm readings after which their length is what the sensor reads at rest, however far it is from
    /// the last one (a sensor with offsets reads another length in another pose).
    public static let calmTime = 0.4
    /// Which side of flat the hinge is on is followed through readings up to this share off 1 g: a fold made
    /// while moving is seen passing flat, though its angles are not published.
    public static let sideDeviation = 0.3
    /// The smoothed reading has caught up with the readings once within this share of 1 g of the latest (about
    /// 3°): until then more samples would still move the hinge, and the engine is not quiet.
    public static let caughtUp = 0.05
    /// Seconds both sensors must read steadily again after acceleration before the fold is read from them.
    public static let settleTime = 0.2
    /// A reading after a longer gap starts the smoothing afresh.
    public static let maxGap = 1.0
    /// The hinge is read only while both readings have at least this share across the hinge (the hinge more
    /// than about 24° from upright); below it, the angle is held.
    public static let readableAcross = 0.4
    /// Once unreadable, the share must come back to this before the hinge is read again, so that a device held
    /// near the limit does not flap between a number and null.
    public static let unreadableAcross = 0.3
    /// Hinge angles in this range read the same from no other fold; outside it, closed and folded back read alike
    /// and the side the hinge was last seen on decides (ChromeOS's stable range is 20°–340°).
    public static let stableRange = 20.0...340.0
    /// Closed at or below this angle…
    public static let closedEnter = 20.0
    /// …and open again above this one.
    public static let closedLeave = 35.0
    /// Past flat, the keyboard is out of use above this angle (ChromeOS enters its tablet mode above 200°)…
    public static let foldedEnter = 200.0
    /// …and in use again below this one (ChromeOS leaves it below 160°).
    public static let foldedLeave = 160.0
    /// Seconds the angle must stay past `foldedEnter` before the keyboard counts as out of use: a laptop opened
    /// flat whose hinge wobbles up to the threshold stays a laptop, while a fold passes it on its way.
    public static let foldedDwell = 0.5
    /// Folded back into a tablet at or above this angle…
    public static let tabletEnter = 320.0
    /// …and unfolded into a stand or tent below this one.
    public static let tabletLeave = 305.0
    /// Folded past flat, the display counts as upside down (a tent) once gravity's part along its y axis is
    /// above this share of 1 g, and upright again (a stand) below its negative.
    public static let tentShare = 0.3
    /// The published hinge follows the angle read in steps of at least this many degrees.
    public static let hingeStep = 5
    /// Seconds of samples without a base reading after which a base that was there counts as detached (from the
    /// first such sample: a gap with no sample at all counts for nothing).
    public static let baseLostAfter = 1.0
    /// The base's own rotation is read only while gravity's share out of its plane is below this (it is not
    /// lying flat), and changes once the in-plane direction is this many degrees past the quadrant's edge.
    public static let baseFlatShare = 0.8
    /// See `baseFlatShare`.
    public static let baseRotationMargin = 10.0
}
