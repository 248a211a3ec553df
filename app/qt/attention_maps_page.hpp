// The "Attention maps" tab: a trained model's saved attention maps (AttentionMapsModel) with
// the file's controls (tensor, batch element, probabilities or scores, the ALiBi prior it is
// paired with, the layer, head and query row, the fit's rows) over seven views: the layer's heads
// as small multiples, every layer at once, one head, attention vs distance and one row against
// their priors, the heads' similarity matrix, the sortable, exportable fit table, and two heads
// (or a head and its prior) side by side with their difference (two_heads_view.hpp). The views
// draw the core's pictures and texts; this file only wires them.
#pragma once

#include "maps_heatmap_view.hpp"
#include "model/attention_maps_model.hpp"

#include <alibi/explore/attention_maps_view.hpp>
#include <alibi/explore/job_runner.hpp>
#include <alibi/explore/lesson_state.hpp>
#include <alibi/figure/attention_maps_render.hpp>
#include <alibi/figure/figure_job.hpp>
#include <alibi/figure/maps_picture.hpp>
#include <alibi/io/preset.hpp>

#include <QElapsedTimer>
#include <QWidget>

#include <functional>
#include <optional>

class QCheckBox;
class QHBoxLayout;
class QComboBox;
class QLabel;
class QMenu;
class QProgressBar;
class QPushButton;
class QScrollArea;
class QSlider;
class QSortFilterProxyModel;
class QSpinBox;
class QTabWidget;
class QTableView;
class QToolButton;

namespace alibi::qt {

class NumberTable;
class LessonRowsProxy;
class PlotWidget;
class TwoHeadsView;

class AttentionMapsPage : public QWidget {
    Q_OBJECT
public:
    enum View { GridView, OverviewView, HeadView, DistanceView, SimilarityView, TableView, TwoHeadsTab, ViewCount };

    explicit AttentionMapsPage(QWidget* parent = nullptr);
    // The height the page takes at width `w` in its tab's scroll area, which sizes the page by it
    // (the wrapped status line gives the layout a height-for-width): the controls and the views at
    // their minimum, or, where that would leave the views a strip, the views as tall as the tab
    // (heightForWidth in the .cpp). The layout's own answer, the views' preferred 600 px, made the
    // page taller than a 1280x720 projector's tab, and the grid was cut at top and bottom.
    [[nodiscard]] int heightForWidth(int w) const override;

    [[nodiscard]] AttentionMapsModel* model() const { return m_model; }
    // Where the "current session" prior comes from, and the presets offered as priors.
    void setPriorSources(std::function<SlopeParams()> session, std::vector<Preset> presets);

    // Opens a file in the background (File > Open attention maps, drops, Help > examples).
    void openFile(const QString& path);
    // A lesson step over attention maps: opens `path` unless it is already open, then shows the
    // layer numbered `layerNumber` in view `view` (an index of views(): grid, all layers, head,
    // distance and rows, similarity, fit table), with that head (-1: keep) and query row
    // (-1: keep). Applied once the file is open.
    struct LessonTarget {
        QString path;
        int layerNumber = 0;
        int view = 0;
        int head = -1;
        std::int64_t row = -1;
        bool rowPlot = false;  // the step is about one query row: the distance view's lower plot
    };
    void showLessonTarget(const LessonTarget& target);
    // The step's mark on these views (the core's, LessonMarkScope::AttentionMaps): on the layer
    // the step shows, the marked heads' rows of the fit table and tiles of the layer grid, and
    // the marked cell in the layer grid and the head view. Empty: none.
    void setLessonMark(explore::LessonMark mark);
    [[nodiscard]] const explore::LessonMark& lessonMark() const { return m_lessonMark; }
    // The fit table marks this source row (its head and layer are the lesson's).
    [[nodiscard]] bool marksFitRow(int row) const;
    void setLayerIndex(int layerIndex);
    void setHead(int head);
    void setRow(std::int64_t row);
    // The prior combo's items: none, the current session's slopes, the file's own slopes (a model
    // run's maps name them), then the presets. False (and failed()) when refused.
    enum PriorItem { PriorNone = 0, PriorSession = 1, PriorFile = 2, PriorFirstPreset = 3 };
    bool choosePrior(int item);
    void setSimilarity(SimilarityBasis basis, HeadOrder order);
    void startFit();
    Result<void> exportTable(const QString& path, FileFormat format);
    // Saves the figure of `params` (layer, head or -1, size at 1x) at `scale` in the background;
    // figureSaved tells when it is written (or failed). False when no maps are open.
    bool exportFigure(const QString& path, const MapsHeatmapParams& params, int scale);
    // The similarity matrix shown now as a figure (the same as `alibi render FILE --what
    // similarity` draws), `width` x `height` at 1x, at `scale`; false (and failed()) when no
    // matrix is shown yet.
    bool exportSimilarityFigure(const QString& path, int width, int height, int scale);
    // Every layer at once (the All layers tab) as `alibi render FILE --what overview` draws it;
    // params.layerIndex and head are ignored. False when no maps are open.
    bool exportOverviewFigure(const QString& path, const MapsHeatmapParams& params, int scale);
    // The Distance & rows tab's two plots as figures (`--what fit` and `--what row`), `width` x
    // `height` at 1x: SVG when `path` ends in .svg, else PNG at `scale`. False (and failed())
    // when the plot has nothing to draw yet (no fit for the head's distance profile).
    enum class Plot { Distance, Row };
    bool exportPlotFigure(Plot plot, const QString& path, int width, int height, int scale);
    // The figure actions the Figure menu offers for the open tab (rebuilt each time it opens;
    // the right-click menu of a view offers the same).
    void fillFigureMenu(QMenu* menu);

    [[nodiscard]] int layerIndex() const;
    [[nodiscard]] int head() const;
    [[nodiscard]] std::int64_t row() const;
    [[nodiscard]] QTabWidget* views() const { return m_views; }
    [[nodiscard]] MapsHeatmapView* gridView() const { return m_grid; }
    [[nodiscard]] MapsHeatmapView* overviewView() const { return m_overview; }
    [[nodiscard]] MapsHeatmapView* headView() const { return m_headView; }
    [[nodiscard]] MapsHeatmapView* similarityView() const { return m_similarity; }
    [[nodiscard]] PlotWidget* profilePlot() const { return m_profile; }
    [[nodiscard]] PlotWidget* rowPlot() const { return m_rowPlot; }
    [[nodiscard]] QTableView* table() const { return m_table; }
    [[nodiscard]] TwoHeadsView* twoHeadsView() const { return m_twoHeads; }
    // The Two heads tab as `alibi render FILE --what heads` draws it, `width` x `height` at 1x.
    bool exportTwoHeadsFigure(const QString& path, int width, int height, int scale);
    [[nodiscard]] const std::vector<int>& similarityOrder() const { return m_similarityOrder; }
    [[nodiscard]] QString hoverText() const { return m_hoverText; }
    // Whether hovering a map also shows its read-out in a tooltip at the pointer (off in
    // presentation mode: the status bar's band shows it, and the tooltip covered the maps).
    void setHoverTips(bool on) { m_hoverTips = on; }
    [[nodiscard]] QString summaryText() const;
    // About the longest status-bar read-out a cell of this file gives (last and middle rows, keys
    // at both ends and between, of every layer's first and last head, with a fitted slope even
    // before the fit has run, and room for a few more digits): the presentation band's height.
    [[nodiscard]] QString longestReadout() const;
    // The read-out of the cell under device pixel `p` of a view, as hovering shows it.
    QString hoverAt(MapsHeatmapView* view, QPoint devicePixel);
    // A picture (grid, overview, head, similarity, the row plot's row) is still being made in
    // the background.
    [[nodiscard]] bool picturesPending() const;

signals:
    void openRequested();
    void cellHovered(const QString& text);  // one line, for the status bar; empty: none
    void failed(const QString& title, const QString& message);
    void statusMessage(const QString& text, int timeoutMs);
    void figureSaved(bool ok);

protected:
    void resizeEvent(QResizeEvent* event) override;
    void changeEvent(QEvent* event) override;

private:
    // The page's parts, built in this order by the constructor (attention_maps_controls.cpp):
    // the control rows above the views, the views and their tabs, the column that holds them,
    // then the wiring of the model, the controls, the views and the keys.
    struct ControlRows {
        QHBoxLayout* file;           // open, tensor, batch, values, Figure
        QHBoxLayout* priorAndTable;  // the prior, the table's exports
        QHBoxLayout* layer;          // layer, head, row (and the colour options where they fit)
        QHBoxLayout* colours;        // the colour options where the layer's row has no room
        QHBoxLayout* fit;            // the fit's rows, Fit, Cancel, progress
    };
    QHBoxLayout* buildFileControls();
    ControlRows buildPositionAndFitControls(QHBoxLayout* fileRow);
    void buildMapViews();
    QWidget* buildDistanceTab();
    QWidget* buildSimilarityTab();
    void buildFitTable();
    void buildTabs(QWidget* distancePage, QWidget* similarityPage);
    void layOut(const ControlRows& rows);
    void wireModel();
    void wireControls();
    void wireViews();
    void addLayerKeys();
    // The renderer of the grid, head or overview view (attention_maps_views.cpp): captures the
    // shown state on the UI thread; its job draws the core's picture on the view's worker.
    [[nodiscard]] MapsHeatmapView::Renderer mapsRenderer(MapsShows shows);
    // The figure of the open maps as `kind` (Maps or MapsOverview) from `params` at `scale`.
    bool exportMapsFigure(FigureJobRequest::Kind kind, const QString& path, const MapsHeatmapParams& params, int scale);

    // "log colours" and "per-head scale" on the layer's row where the page's view has the room,
    // else on a row of their own (beside the lesson in presentation mode the layer's row with
    // them made the page 31 px wider than its view: it scrolled sideways).
    void placeColourOptions();
    void applyLessonTarget();
    void showLessonMark();
    // Scrolls the page (in its tab's scroll area, on a small screen) to what the step shown
    // last cites, once that is drawn (m_cited; then the user scrolls).
    void scrollToCited();  // the views whole in the tab, for the layer now shown
    [[nodiscard]] QScrollArea* enclosingScrollArea() const;
    // "Opening FILE… reading the header: 12.0 MiB of 95.4 MiB (Cancel stops it)".
    [[nodiscard]] QString openingText(const QString& stage) const;
    void exportFigureDialog(int scale);
    // Plot figures: `scale` 0 is SVG.
    void exportPlotDialog(Plot plot, int scale);
    [[nodiscard]] QString figureFileName(const QString& what, int scale, bool svg = false) const;
    // Draws `request` (the core's figure job) on the figure runner and writes it to `path`
    // atomically; `what` ("at 2x") is for the status line; figureSaved tells the end.
    void saveFigureInBackground(const QString& path, const QString& what, FigureJobRequest request);
    void onOpened();
    void onFitted();
    void refreshLayer();  // grid, head view, plots after a layer, head, row or fit change
    void refreshPlots();
    // The row plot's row, read on a worker thread (see requestRow).
    struct RowRequest {
        MapsPtr maps;
        int layer = 0, head = 0;
        std::int64_t row = 0;
        explore::HeadSlopes slopes;
    };
    void requestRow(RowRequest request);
    void onGridShown();                       // the grid's labels and header, for the shown layer
    void setHeadHeader(int layer, int head);  // the head view's header, for the shown head
    void highlightOverview();
    void refreshSimilarity();
    void refreshTable();
    void updateControls();
    [[nodiscard]] explore::HeadSlopes slopesOf(int layerIndex, int head) const;
    [[nodiscard]] QString priorText() const;
    void exportDialog(FileFormat format);

    AttentionMapsModel* m_model;
    std::function<SlopeParams()> m_sessionSlopes;
    std::vector<Preset> m_presets;

    QLabel* m_file;
    QComboBox* m_tensor;
    QSpinBox* m_batch;
    QLabel* m_batchLabel;
    QComboBox* m_values;
    QComboBox* m_prior;
    QSpinBox* m_layer;
    QSlider* m_layerSlider;
    QSpinBox* m_head;
    QSpinBox* m_row;
    QCheckBox* m_log;
    QHBoxLayout* m_layerRow = nullptr;
    QHBoxLayout* m_colourRow = nullptr;
    QCheckBox* m_perHead;  // per-head colour scales on the layer grid and the overview (not saved, as ImGui's)
    QSpinBox* m_firstRow;
    QSpinBox* m_lastRow;
    QPushButton* m_fit;
    QPushButton* m_cancel;
    QProgressBar* m_progress;
    QPushButton* m_exportCsv;
    QPushButton* m_exportJson;
    QToolButton* m_figure;
    QLabel* m_status;

    QTabWidget* m_views;
    MapsHeatmapView* m_grid;
    MapsHeatmapView* m_overview;
    MapsHeatmapView* m_headView;
    PlotWidget* m_profile;
    PlotWidget* m_rowPlot;
    QWidget* m_distancePage;  // the tab holding the two plots
    QComboBox* m_basis;
    QComboBox* m_order;
    MapsHeatmapView* m_similarity;
    QLabel* m_similarityNote;
    NumberTable* m_tableModel;
    QSortFilterProxyModel* m_sorted;
    QTableView* m_table;
    TwoHeadsView* m_twoHeads;

    MapsOverview m_overviewMap;  // the last overview, for its hit test
    DistanceMatrix m_distances;
    std::vector<int> m_similarityOrder;
    std::string m_similarityTitle;  // the shown matrix's header: layer, basis
    QString m_hoverText;
    bool m_hoverTips = true;
    QElapsedTimer m_gridRequested;  // ALIBI_LOG_LATENCY: layer switch -> grid shown
    int m_priorItem = 0;
    std::optional<LessonTarget> m_lessonTarget;  // waiting for its file to open
    std::optional<LessonTarget> m_cited;         // the step whose cited part is not yet scrolled to
    explore::LessonMark m_lessonMark;
    int m_lessonLayer = -1;  // the layer index the mark is for (-1: until the step's file is open)
    LessonRowsProxy* m_lessonRows = nullptr;
    std::uint64_t m_rowShown = 0;  // the row runner's generation last shown (or dropped)
    // The core's runners, last (destroyed, so joined, first): the row plot's row (latest-wins:
    // scrubbing the row reads the rows it lands on, not every row it passed) and figure saves
    // (queued: none is dropped).
    explore::JobRunner m_rowRunner{{.niceness = 2}};
    explore::JobRunner m_figureRunner{{.niceness = 4, .queue = true}};
};

}  // namespace alibi::qt
