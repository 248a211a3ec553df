// Issue 16: the Qt explorer's open paths (open session, diagnose a file, drag and drop) given a
// corpus of hostile files: a session nested 100,000 levels deep (which crashed the explorer), a
// FIFO (which would block the UI forever), a 16 MiB field, binary garbage, damaged .npy and
// .safetensors files. Each must give a clear, short message, never crash or hang, and keep the
// previous state (the session shown, the last diagnosis).
#include "diagnose_view.hpp"
#include "main_window.hpp"
#include "settled.hpp"

#include <alibi/io/session.hpp>

#include <QApplication>
#include <QDropEvent>
#include <QFile>
#include <QMimeData>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QUrl>

#include <sys/stat.h>

using namespace alibi;
using namespace alibi::qt;

namespace {

using alibi::qt::test::settled;

QString write(const QTemporaryDir& dir, const QString& name, const QByteArray& content) {
    const QString path = dir.filePath(name);
    QFile f(path);
    if (f.open(QIODevice::WriteOnly)) f.write(content);
    return path;
}

QByteArray le64(quint64 v) {
    QByteArray b(8, '\0');
    for (int i = 0; i < 8; ++i) b[i] = static_cast<char>((v >> (8 * i)) & 0xff);
    return b;
}

QByteArray safetensors(const QByteArray& json, const QByteArray& data) {
    return le64(json.size()) + json + data;
}

// Hostile sessions, each with the word its message must hold.
QList<QPair<QString, QByteArray>> hostileSessions() {
    const QByteArray deep =
        QByteArray("{\"version\":1,\"bias\":{\"heads\":") + QByteArray(100000, '[') + QByteArray(100000, ']') + "}}";
    return {
        {"deep.alibi.json", deep},
        {"deep_top.alibi.json", QByteArray(100000, '[') + QByteArray(100000, ']')},
        {"huge_field.alibi.json",
         QByteArray("{\"version\":1,\"bias\":{\"scheme\":\"") + QByteArray(15 << 20, 'x') + "\"}}"},
        {"binary.alibi.json", QByteArray("\xff\xfe\x00\x1b[2J garbage", 16)},
        {"tiny_temperature.alibi.json", "{\"version\":1,\"attention\":{\"temperature\":1e-320}}"},
        {"huge_sigma.alibi.json", "{\"version\":1,\"attention\":{\"sigma\":1e300}}"},
    };
}

QList<QPair<QString, QByteArray>> hostileTensors() {
    const QByteArray gapJson =
        "{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]},"
        "\"b\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[8,12]}}";
    QByteArray shifted =
        safetensors("{\"bias\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}}  ", QByteArray(8, '\0'));
    shifted[0] = static_cast<char>(shifted[0] - 1);
    return {
        {"junk.npy", "not a numpy file at all"},
        {"escape.npy", QByteArray("\x93NUMPY\x01\x00\x36\x00", 10) +
                           "{'descr': '<f\\4', 'fortran_order': False, 'shape': (1,), }" + QByteArray(4, '\0')},
        {"gap.safetensors", safetensors(gapJson, QByteArray(12, '\0'))},
        {"shifted.safetensors", shifted},
        {"deep.safetensors", safetensors(QByteArray(100000, '{'), "")},
        {"trailing.safetensors",
         safetensors("{\"bias\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}", QByteArray(5, '\0'))},
    };
}

// What a drag from a file manager delivers: enter (accepted for our extensions), then drop.
void dragAndDrop(QWidget& w, const QMimeData& mime) {
    const QPoint at = w.rect().center();
    QDragEnterEvent enter(at, Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(&w, &enter);
    QDropEvent drop(QPointF(at), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(&w, &drop);
}

}  // namespace

class HostileFilesTest : public QObject {
    Q_OBJECT

private slots:
    void openSessionRefusesEachAndKeepsTheSession() {
        QTemporaryDir dir;
        MainWindow w;
        w.setInteractive(false);
        w.show();
        QVERIFY(settled(w));
        const Session before = w.model()->session();
        auto corpus = hostileSessions();
        const QString fifo = dir.filePath("fifo.alibi.json");
        QCOMPARE(::mkfifo(fifo.toLocal8Bit().constData(), 0600), 0);
        QStringList paths{fifo};
        for (const auto& [name, content] : corpus) paths << write(dir, name, content);
        for (const QString& path : paths) {
            QVERIFY2(!w.openSession(path), qPrintable(path));
            QVERIFY2(!w.lastError().isEmpty(), qPrintable(path));
            QVERIFY2(w.lastError().size() < 600, qPrintable(w.lastError().left(600)));
            QVERIFY2(w.model()->session() == before, qPrintable(path));
        }
        // Dropped on the window: the same refusal.
        for (const QString& path : paths) {
            QMimeData mime;
            mime.setUrls({QUrl::fromLocalFile(path)});
            dragAndDrop(w, mime);
            QVERIFY2(w.model()->session() == before, qPrintable(path));
        }
        QVERIFY(settled(w));
    }

    void diagnoseRefusesEachAndKeepsTheLastDiagnosis() {
        QTemporaryDir dir;
        MainWindow w;
        w.setInteractive(false);
        w.show();
        QVERIFY(settled(w));
        // A valid diagnosis first, to be kept.
        QSignalSpy done(w.diagnoseView(), &DiagnoseView::diagnosed);
        const QString good = dir.filePath("good.npy");
        {
            QByteArray npy("\x93NUMPY\x01\x00\x76\x00", 10);
            QByteArray dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 2, 2), }";
            dict += QByteArray(0x76 - 1 - dict.size(), ' ') + "\n";
            const float v[4] = {0, -1e9f, -0.5f, 0};
            write(dir, "good.npy", npy + dict + QByteArray(reinterpret_cast<const char*>(v), sizeof v));
        }
        w.diagnoseFile(good);
        QVERIFY(done.wait(30000));
        const QString summary = w.diagnoseView()->summaryText();
        QVERIFY(!summary.isEmpty());

        const QString fifo = dir.filePath("fifo.npy");
        QCOMPARE(::mkfifo(fifo.toLocal8Bit().constData(), 0600), 0);
        QStringList paths{fifo};
        for (const auto& [name, content] : hostileTensors()) paths << write(dir, name, content);
        for (const QString& path : paths) {
            QSignalSpy failed(w.diagnoseView(), &DiagnoseView::failed);
            w.diagnoseFile(path);
            QVERIFY2(failed.wait(30000), qPrintable(path));
            const QString message = failed.at(0).at(0).toString();
            QVERIFY2(!message.isEmpty() && message.size() < 600, qPrintable(message.left(600)));
            QCOMPARE(w.diagnoseView()->summaryText(), summary);
        }
        // Dropped: the same path through dropEvent.
        for (const QString& path : paths) {
            QSignalSpy failed(w.diagnoseView(), &DiagnoseView::failed);
            QMimeData mime;
            mime.setUrls({QUrl::fromLocalFile(path)});
            dragAndDrop(w, mime);
            QVERIFY2(failed.wait(30000), qPrintable(path));
            QCOMPARE(w.diagnoseView()->summaryText(), summary);
        }
    }
};

QTEST_MAIN(HostileFilesTest)
#include "test_hostile_files.moc"
