import RotationSensors

/// The longer texts of `rotationd --fix-mount`: the commands that install its entries by hand, and how to send
/// them to systemd. Pure text.
enum MountFixText {
    /// The commands that install `merged` at `path` and apply it to `devices`, for a person to run (after
    /// `sudo` unless `asRoot`): the whole file through `tee` when entries are replaced or the file is new, else
    /// the new entries appended.
    static func commands(_ merged: HwdbFile, path: String, existed: Bool, devices: [String], asRoot: Bool) -> String {
        let sudo = asRoot ? "" : "sudo "
        let directory = String(path[..<(path.lastIndex(of: "/") ?? path.endIndex)])
        var lines = ["\(sudo)mkdir -p \(directory)"]
        if existed && merged.replaced.isEmpty {
            lines.append("\(sudo)tee -a \(path) > /dev/null << 'EOF'")
            lines.append("")
            lines += merged.entries.flatMap(\.lines)
        } else {
            lines.append("\(sudo)tee \(path) > /dev/null << 'EOF'")
            lines += merged.text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
        }
        lines.append("EOF")
        lines.append("\(sudo)systemd-hwdb update")
        for device in devices {
            lines.append("\(sudo)udevadm trigger --verbose --action=change --settle /sys/bus/iio/devices/\(device)")
        }
        return lines.joined(separator: "\n")
    }

    /// A piece of a longer text: prose, wrapped to the terminal, or lines to copy, printed as they are.
    enum Block: Equatable {
        case prose(String)
        case verbatim(String)
    }

    /// How to send `entries` to systemd, with the lines to include; `inherited` names the sensors whose matrix
    /// already came from an entry of the installed database that the local file did not hold (an upstream entry
    /// to correct rather than add to), with that matrix; `checked` says whether the fix was installed and checked.
    static func upstream(_ entries: [HwdbEntry], inherited: [(device: String, matrix: String)], checked: Bool) -> [Block] {
        var blocks: [Block] = [
            .prose((checked ? "To fix this" : "Once it works, fix this") + " for everyone with this machine: send the entry to systemd. Add it to hwdb.d/60-sensor.hwdb of https://github.com/systemd/systemd (sorted by brand, then model, under the brand's heading) and open a pull request, saying how you checked it. The lines to include:"),
        ]
        var lines = [""]
        for entry in entries {
            lines.append("# " + (entry.key.machine ?? "MACHINE NAME"))
            lines.append(entry.key.match)
            lines += entry.properties.map { " " + $0 }
            lines.append("")
        }
        blocks.append(.verbatim(lines.joined(separator: "\n")))
        if entries.contains(where: { $0.key.match.contains(":pvr") }) {
            blocks.append(.prose("Leave pvr out of the match line unless other versions of this model are mounted differently."))
        }
        for (device, matrix) in inherited {
            blocks.append(.prose("udev already gave \(device) ACCEL_MOUNT_MATRIX=\(matrix) from an entry of the hwdb, which is wrong for this machine: correct that entry in the pull request rather than add a second one. It is among those that this prints:"))
            blocks.append(.verbatim("\ngrep -rn -B3 'ACCEL_MOUNT_MATRIX=\(matrix)' /usr/lib/udev/hwdb.d /etc/udev/hwdb.d\n"))
        }
        return blocks
    }
}
