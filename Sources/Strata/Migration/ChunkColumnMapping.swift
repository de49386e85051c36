internal import StrataStorage

/// How the columns of a chunk that a migration mapped without decoding it are made from the
/// columns its snapshot stores: for each column of the new layout, the stored column it
/// keeps (with the conversions the migrations made on the way) or a value every row shares.
///
/// A migrating open hands each undecoded chunk one of these (``SchemaMapping/apply(to:oldLayouts:newLayouts:nextKeys:)``)
/// instead of reading it, so that adding an attribute to a store of a million rows costs
/// what a plain open costs; the chunk's first read decodes the stored columns it needs and
/// makes the others (`TableChunk+Lazy.swift`). The same mapping serves every chunk of an
/// entity.
///
/// `Sendable`: immutable but for ``constants``, a cache behind its lock.
final class ChunkColumnMapping: Sendable {
    /// Where a column's values come from before its conversions.
    enum Base: Sendable {
        /// The stored column with this number (in the snapshot's table).
        case stored(Int)
        /// Every row holds this value (null rows when it is null), in a column of this kind.
        case constant(AttributeValue, ColumnKind)
    }

    /// One conversion a migration made (``SchemaMapping/convert(_:from:to:fillingNilsWith:)``).
    struct Conversion: Sendable {
        var from: AttributeType?
        var to: AttributeType?
        /// What nils become (null: they stay nil).
        var fill: AttributeValue
    }

    /// One column of the new layout.
    struct Source: Sendable {
        var base: Base
        /// Applied in order to the base column.
        var conversions: [Conversion] = []
    }

    /// One per column of ``table``, in its order.
    let sources: [Source]
    /// The table the chunk's columns now make (the new layout's).
    let table: TableDescriptor
    /// Columns made of one shared value, by column number and row count: every chunk of that
    /// many rows shares one buffer, as an eager migration's do.
    private let constants = Locked<[ConstantKey: ColumnChunk]>([:])

    private struct ConstantKey: Hashable {
        var column: Int
        var count: Int
    }

    init(sources: [Source], table: TableDescriptor) {
        precondition(sources.count == table.columns.count, "a mapping has a source per column")
        self.sources = sources
        self.table = table
    }

    /// This mapping applied after `earlier`: the sources of this one's stored columns are
    /// `earlier`'s (this one numbers its stored columns as `earlier` numbers its results).
    func composed(after earlier: ChunkColumnMapping?) -> ChunkColumnMapping {
        guard let earlier else { return self }
        return ChunkColumnMapping(sources: sources.map { source in
            guard case .stored(let column) = source.base else { return source }
            var composed = earlier.sources[column]
            composed.conversions += source.conversions
            return composed
        }, table: table)
    }

    /// Which stored columns making the columns `wanted` (by new number) reads.
    func storedColumns(for wanted: [Bool], storedCount: Int) -> [Bool] {
        var mask = [Bool](repeating: false, count: storedCount)
        for (column, want) in wanted.enumerated() where want {
            if case .stored(let stored) = sources[column].base { mask[stored] = true }
        }
        return mask
    }

    /// Column `column` of a chunk of `count` rows, made from the decoded stored columns
    /// (`stored[s]` set for each stored column it reads).
    func column(_ column: Int, from stored: [ColumnChunk?], count: Int) -> ColumnChunk {
        let source = sources[column]
        var result: ColumnChunk
        switch source.base {
        case .stored(let s): result = stored[s]!
        case .constant(let value, let kind): result = constant(column, value: value, kind: kind, count: count)
        }
        for conversion in source.conversions {
            result = SchemaMapping.convert(result, from: conversion.from, to: conversion.to, fillingNilsWith: conversion.fill)
        }
        return result
    }

    /// Every column of a chunk of `count` rows from the columns it had before the mapping.
    func columns(from old: [ColumnChunk], count: Int) -> [ColumnChunk] {
        sources.indices.map { column($0, from: old, count: count) }
    }

    private func constant(_ column: Int, value: AttributeValue, kind: ColumnKind, count: Int) -> ColumnChunk {
        let key = ConstantKey(column: column, count: count)
        if let shared = constants.withLock({ $0[key] }) { return shared }
        let made = SchemaMapping.column(repeating: value, kind: kind, count: count)
        return constants.withLock { cache in
            if let shared = cache[key] { return shared }
            cache[key] = made
            return made
        }
    }

    /// The statistics of the mapped columns of a chunk of `count` rows whose columns before
    /// the mapping had `old`: true bounds, never narrower than the values (a range may be
    /// wider: nils filled with a value widen it by that value whether or not there were any).
    func statistics(from old: ColumnStatisticsList, count: Int) -> ColumnStatisticsList {
        ColumnStatisticsList(sources.indices.map { column in
            let source = sources[column]
            var statistics: ColumnStatistics
            switch source.base {
            case .stored(let s): statistics = old[s]
            case .constant(let value, let kind):
                statistics = ColumnStatistics(of: SchemaMapping.column(repeating: value, kind: kind, count: 1))
                statistics.nullCount = value.isNull ? count : 0
            }
            for conversion in source.conversions {
                statistics = Self.converted(statistics, conversion, kind: table.columns[column].kind)
            }
            return statistics
        })
    }

    /// `statistics` after `conversion` (to a column of `kind`).
    private static func converted(_ statistics: ColumnStatistics, _ conversion: Conversion, kind: ColumnKind) -> ColumnStatistics {
        var result = statistics
        if let from = conversion.from, let to = conversion.to, from != to, to == .double, case .int(let low, let high)? = statistics.range {
            result.range = .double(min: Double(low), max: Double(high))
        }
        guard !conversion.fill.isNull else { return result }
        let fill = conversion.to == .double ? AttributeValue.double(conversion.fill.doubleValue) : conversion.fill
        let filled = ColumnStatistics(of: SchemaMapping.column(repeating: fill, kind: kind, count: 1)).range
        result.nullCount = 0
        switch (result.range, filled) {
        case (nil, let range):
            // Every row was null, or the column has no range (bytes): the fill's, if any.
            result.range = range
        case (.int(let low, let high)?, .int(let value, _)?):
            result.range = .int(min: Swift.min(low, value), max: Swift.max(high, value))
        case (.double(let low, let high)?, .double(let value, _)?):
            result.range = .double(min: Swift.min(low, value), max: Swift.max(high, value))
        default:
            // Ranges of two kinds: no bound is known, which skips nothing.
            result.range = nil
        }
        return result
    }
}
