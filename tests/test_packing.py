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


def test_a_packed_list_compares_reads_and_slices_as_its_list():
    ids = ["b", "a", "b", "c", "a"]
    table, (packed,) = pack_ids(ids)
    kept = PackedIds(table, decode_indexes(packed, len(table), len(ids)))
    other_table, (other,) = pack_ids(["z", *ids])  # the same ids under another table
    shifted = PackedIds(other_table, decode_indexes(other, len(other_table), 6)[1:])
    assert kept == ids and ids == kept and kept == shifted and not kept != ids
    assert kept != ids[:-1] and kept != [*ids[:-1], "b"] and kept != []
    assert list(kept) == ids and kept[1] == "a" and kept[1:3] == ["a", "b"] and kept[:0] == []
    assert kept.head(2).unpack() == ["b", "a"] and kept.head(9) is kept


def test_a_submission_is_read_at_its_size_and_up_to_the_cap_when_it_grew(monkeypatch):
    import io

    from grader.sandbox import submission

    assert submission._read_capped(io.BytesIO(b"abc"), 3) == b"abc"
    assert submission._read_capped(io.BytesIO(b"abcdef"), 3) == b"abcdef"  # grew since
    monkeypatch.setattr(submission, "MAX_SOURCE_BYTES", 4)
    assert submission._read_capped(io.BytesIO(b"abcdef"), 3) == b"abcd"
    assert submission._read_capped(io.BytesIO(b"abcdef"), 6) == b"abcd"
