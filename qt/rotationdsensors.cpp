/* The rotationd QtSensors backend (rotationdsensors.h). */
#include "rotationdsensors.h"

#include <rotationd.h>

#include <QtCore/QDebug>
#include <QtCore/QSocketNotifier>
#include <QtSensors/QOrientationSensor>
#include <QtSensors/QSensorManager>

#include <cerrno>
#include <cstring>
#include <ctime>

const char *const RotationdOrientationBackend::identifier = "rotationd.orientation";

/* How long a started sensor waits for the service's greeting before it reports the service missing, and how often
 * it looks again while the service stays away (the library itself retries the connection every 2 s at most). */
static const int graceMs = 500;

RotationdOrientationBackend::RotationdOrientationBackend(QSensor *sensor) : QSensorBackend(sensor) {
    setReading<QOrientationReading>(&reading_);
    setDescription(QStringLiteral("rotationd: the device orientation from the rotation service"));
    watchdog_.setInterval(graceMs);
    connect(&watchdog_, &QTimer::timeout, this, &RotationdOrientationBackend::checkConnection);
}

RotationdOrientationBackend::~RotationdOrientationBackend() { close(); }

void RotationdOrientationBackend::start() {
    if (client_) return;
    /* NULL: where every client looks, $ROTATIOND_SOCKET first (librotationd(3)). */
    int rc = rotationd_open(&client_, nullptr);
    if (rc < 0) {
        qWarning("rotationd sensor: cannot open a subscription to rotationd: %s; the program is out of memory or file "
                 "descriptors, or ROTATIOND_SOCKET is longer than a socket path may be", strerror(-rc));
        client_ = nullptr;
        Q_EMIT sensorError(-rc);
        sensorStopped();
        return;
    }
    last_ = -1;
    connected_ = false;
    errorReported_ = false;
    notifier_ = new QSocketNotifier(rotationd_fd(client_), QSocketNotifier::Read, this);
    connect(notifier_, &QSocketNotifier::activated, this, &RotationdOrientationBackend::dispatch);
    watchdog_.start();
}

void RotationdOrientationBackend::stop() { close(); }

void RotationdOrientationBackend::close() {
    watchdog_.stop();
    delete notifier_;
    notifier_ = nullptr;
    rotationd_close(client_);
    client_ = nullptr;
    connected_ = false;
}

void RotationdOrientationBackend::dispatch() {
    if (!client_) return;
    rotationd_dispatch(client_);
    bool connected = rotationd_is_connected(client_) == 1;
    if (connected_ && !connected) {
        /* The service went away: what comes after the reconnection is reported afresh. */
        last_ = -1;
        checkConnection();
    }
    connected_ = connected;
    if (connected) {
        if (errorReported_) qInfo("rotationd sensor: connected to rotationd at %s again", rotationd_socket_path(client_));
        errorReported_ = false;
        report();
    }
}

void RotationdOrientationBackend::checkConnection() {
    if (!client_ || rotationd_is_connected(client_) == 1 || errorReported_) return;
    errorReported_ = true;
    struct rotationd_state state;
    rotationd_state(client_, ROTATIOND_NOW, &state);
    qWarning("rotationd sensor: no orientation: %s", rotationd_error_message(client_));
    Q_EMIT sensorError(ENOTCONN);
}

/* Reports the current state when its orientation differs from the last one reported. The rotation maps as
 * QtSensors' iio-sensor-proxy backend maps that service's names: normal is TopUp, left-up LeftUp, bottom-up
 * TopDown, right-up RightUp; lying flat, face-up and face-down are FaceUp and FaceDown. */
void RotationdOrientationBackend::report() {
    struct rotationd_state state;
    if (rotationd_state(client_, ROTATIOND_NOW, &state) != 0) return;
    int orientation;
    if (state.flat && state.tilt == ROTATIOND_TILT_FACE_UP) orientation = QOrientationReading::FaceUp;
    else if (state.flat && state.tilt == ROTATIOND_TILT_FACE_DOWN) orientation = QOrientationReading::FaceDown;
    else if (state.rotation == 0) orientation = QOrientationReading::TopUp;
    else if (state.rotation == 90) orientation = QOrientationReading::LeftUp;
    else if (state.rotation == 180) orientation = QOrientationReading::TopDown;
    else if (state.rotation == 270) orientation = QOrientationReading::RightUp;
    else return; /* not decided yet */
    if (orientation == last_) return;
    last_ = orientation;
    /* QtSensors timestamps are microseconds; the state's is CLOCK_MONOTONIC nanoseconds. */
    quint64 micros;
    if (state.since >= 0) {
        micros = quint64(state.since / 1000);
    } else {
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        micros = quint64(now.tv_sec) * 1000000u + quint64(now.tv_nsec / 1000);
    }
    reading_.setTimestamp(micros);
    reading_.setOrientation(QOrientationReading::Orientation(orientation));
    newReadingAvailable();
}

void RotationdSensorPlugin::registerSensors() {
    if (!QSensorManager::isBackendRegistered(QOrientationSensor::sensorType, RotationdOrientationBackend::identifier))
        QSensorManager::registerBackend(QOrientationSensor::sensorType, RotationdOrientationBackend::identifier, this);
}

QSensorBackend *RotationdSensorPlugin::createBackend(QSensor *sensor) {
    if (sensor->identifier() == RotationdOrientationBackend::identifier) return new RotationdOrientationBackend(sensor);
    return nullptr;
}
