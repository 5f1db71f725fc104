package io.streamtrain.ingest.format;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class InputLinesTest {
    @Test
    void linesEndAtLfOrCrlfOnlyAndALoneCrStaysInItsLine() throws IOException {
        assertEquals(List.of("a", "b\rc", "d", "", "e\r"), read("a\nb\rc\r\nd\n\ne\r".getBytes(StandardCharsets.UTF_8), 1 << 16));
        assertEquals(List.of("x"), read("x\n".getBytes(StandardCharsets.UTF_8), 1 << 16));
        assertEquals(List.of(), read(new byte[0], 1 << 16));
    }

    @Test
    void keepsTheBytesOfALineThatIsNotUtf8() throws IOException {
        byte[] bad = {'1', ' ', (byte) 0xff, (byte) 0xfe, ':', '1'};
        byte[] input = new byte[bad.length + 3];
        System.arraycopy(bad, 0, input, 0, bad.length);
        input[bad.length] = '\r';
        input[bad.length + 1] = '\n';
        input[bad.length + 2] = 'z';
        try (InputLines lines = new InputLines(new ByteArrayInputStream(input))) {
            assertEquals("1 \uFFFD\uFFFD:1", lines.next());
            assertArrayEquals(bad, lines.bytes());
            assertEquals("z", lines.next());
            assertArrayEquals(new byte[] {'z'}, lines.bytes());
            assertNull(lines.next());
        }
    }

    @Test
    void linesLongerThanTheBufferAndLineEndsSplitAcrossReads() throws IOException {
        String longLine = "7".repeat(200_000);
        String text = "a\r\n" + longLine + "\r\nb\rb\n" + longLine;
        // One byte per read: every CR, LF and CRLF falls on a read boundary once.
        assertEquals(List.of("a", longLine, "b\rb", longLine), read(text.getBytes(StandardCharsets.UTF_8), 1));
        assertEquals(List.of("a", longLine, "b\rb", longLine), read(text.getBytes(StandardCharsets.UTF_8), 4096));
    }

    @Test
    void aCsvRecordTakesTheLinesItsQuotedFieldHoldsWithTheirBytes() throws Exception {
        LineParser csv = LineFormat.CSV.parser(ParserAssertions.options("s"), CsvParserTest.mapping("people.json"))
                .afterHeader(CsvParserTest.HEADER);
        String text = "r1,1,1,\"two\r\nlines\",,,,,\n"
                + "r2,1,1,bob,,,,,\r\n"
                + "r3,1,1,\"stray,,,,,\n"     // never closed: its line alone, then reading goes on
                + "r4,1,1,carl,,,,,";
        for (int bytesPerRead : new int[] {1, 7, 1 << 16}) {
            List<String> records = new ArrayList<>();
            List<Integer> lines = new ArrayList<>();
            try (InputLines in = reader(text.getBytes(StandardCharsets.UTF_8), bytesPerRead)) {
                for (String record; (record = in.next(csv)) != null; ) {
                    records.add(record);
                    lines.add(in.lines());
                    assertEquals(record, new String(in.bytes(), StandardCharsets.UTF_8), "the record's own bytes");
                }
            }
            assertEquals(List.of("r1,1,1,\"two\r\nlines\",,,,,", "r2,1,1,bob,,,,,", "r3,1,1,\"stray,,,,,", "r4,1,1,carl,,,,,"),
                    records, "reads of " + bytesPerRead);
            assertEquals(List.of(2, 1, 1, 1), lines);
        }
    }

    @Test
    void aQuoteStillOpenAfterTheMostLinesARecordMayTakeCostsOneLine() throws Exception {
        LineParser csv = LineFormat.CSV.parser(ParserAssertions.options("s"), CsvParserTest.mapping("people.json"))
                .afterHeader(CsvParserTest.HEADER);
        StringBuilder text = new StringBuilder("r0,1,1,\"open,,,,,\n");
        for (int i = 1; i <= InputLines.MAX_RECORD_LINES + 50; i++) {
            text.append("r").append(i).append(",1,1,u,,,,,\n");
        }
        List<String> records = new ArrayList<>();
        try (InputLines in = reader(text.toString().getBytes(StandardCharsets.UTF_8), 4096)) {
            for (String record; (record = in.next(csv)) != null; ) {
                records.add(record);
                assertEquals(1, in.lines());
            }
        }
        assertEquals(InputLines.MAX_RECORD_LINES + 51, records.size());
        assertEquals("r0,1,1,\"open,,,,,", records.get(0));
        assertEquals("r1,1,1,u,,,,,", records.get(1));
    }

    private static InputLines reader(byte[] input, int bytesPerRead) {
        return new InputLines(new ByteArrayInputStream(input) {
            @Override
            public synchronized int read(byte[] b, int off, int len) {
                return super.read(b, off, Math.min(len, bytesPerRead));
            }
        });
    }

    private static List<String> read(byte[] input, int bytesPerRead) throws IOException {
        InputStream in = new ByteArrayInputStream(input) {
            @Override
            public synchronized int read(byte[] b, int off, int len) {
                return super.read(b, off, Math.min(len, bytesPerRead));
            }
        };
        List<String> lines = new ArrayList<>();
        try (InputLines l = new InputLines(in)) {
            for (String line; (line = l.next()) != null; ) {
                lines.add(line);
                assertEquals(line, new String(l.bytes(), StandardCharsets.UTF_8));
            }
        }
        return lines;
    }
}
