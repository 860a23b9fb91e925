"""grader/run/packing.py: packed traces read back exactly, and nothing but pack's own encoding."""

import binascii

from grader.run.packing import PackedIds, decode_indexes, pack_ids, unpack_ids


def test_a_long_list_round_trips_across_the_check_chunks():
    ids = [f"s{i % 251}" for i in range(200_001)]  # 800,004 bytes: five chunks of the check
    table, (packed,) = pack_ids(ids)
    assert unpack_ids(packed, table, len(ids)) == ids
    indexes = decode_indexes(packed, len(table), len(ids))
    kept = PackedIds(table, indexes)
    assert len(kept) == len(ids) and kept.unpack() == ids and kept.encode() == packed


def test_anything_but_the_canonical_encoding_is_refused():
    table, (packed,) = pack_ids(["a", "b", "c", "a", "b"])
    assert unpack_ids(packed, table, 5) == ["a", "b", "c", "a", "b"]
    raw = binascii.a2b_base64(packed)
    spaced = packed[:8] + "\n" + packed[8:]  # a2b_base64 skips it; pack never writes it
    assert packed.endswith("=") and not packed.endswith("==")  # 20 bytes: 2 bits left over
    late_bits = packed[:-2] + chr(ord(packed[-2]) + 1) + "="  # the same bytes, other bits
    assert binascii.a2b_base64(spaced) == raw == binascii.a2b_base64(late_bits)
    for forged in (spaced, late_bits, packed + "====", packed[:-4], packed.replace("A", "*")):
        assert unpack_ids(forged, table, 5) is None, forged
    assert unpack_ids(packed, table[:2], 5) is None  # an index past the table
    assert unpack_ids(packed, table, 4) is None  # longer than the cap
