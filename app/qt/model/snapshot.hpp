// The snapshots the Qt explorer draws are the core explorer layer's (<alibi/explore/snapshot.hpp>):
// every number and title in them comes from the core; the views only draw them. Snapshots travel
// between threads as std::shared_ptr<const T>, so a view keeps the one it shows while a newer one
// is computed. This header only brings the names into alibi::qt and registers the pointers with
// Qt's meta-type system for queued signals.
#pragma once

#include <alibi/explore/snapshot.hpp>

#include <QMetaType>

namespace alibi::qt {

using explore::CompareSnapshot;
using explore::ExtrapolationSnapshot;
using explore::GridPtr;
using explore::GridSnapshot;
using explore::Snapshot;
using explore::SnapshotPtr;

}  // namespace alibi::qt

Q_DECLARE_METATYPE(alibi::qt::GridPtr)
Q_DECLARE_METATYPE(alibi::qt::SnapshotPtr)
