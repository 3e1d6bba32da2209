// SPDX-License-Identifier: BSD-3-Clause
// Test-only bridge to the reference HdrHistogram (Java, Debian's
// libhdrhistogram-java) for tests/unit/hdr_codec and tests/integration.
//   java HdrCheck decode B64     -> "count min max mean p50 p90 p99 p99.9 p99.99 p100"
//   java HdrCheck encode V:N ... -> base64 of a histogram (1 ns .. 10 s, 2
//                                   digits) holding N times each value V
//   java HdrCheck counts B64     -> "index count" per non-zero counter
//   java HdrCheck hlog FILE TAG  -> the intervals of TAG in an interval log
//                                   added up, printed as decode does, then
//                                   the number of intervals
import java.nio.ByteBuffer;
import java.util.Base64;
import org.HdrHistogram.EncodableHistogram;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramLogReader;

public class HdrCheck {
	static Histogram decode(String b64) throws Exception {
		ByteBuffer buf = ByteBuffer.wrap(Base64.getDecoder().decode(b64));
		return Histogram.decodeFromCompressedByteBuffer(buf, 0);
	}

	static void print(Histogram h) {
		StringBuilder sb = new StringBuilder();
		sb.append(h.getTotalCount()).append(' ');
		sb.append(h.getMinValue()).append(' ');
		sb.append(h.getMaxValue()).append(' ');
		sb.append(String.format("%.3f", h.getMean()));
		double[] ps = {50, 90, 99, 99.9, 99.99, 100};
		for (double p : ps)
			sb.append(' ').append(h.getValueAtPercentile(p));
		System.out.println(sb);
	}

	public static void main(String[] args) throws Exception {
		if (args.length == 3 && args[0].equals("hlog")) {
			HistogramLogReader r = new HistogramLogReader(args[1]);
			Histogram acc = new Histogram(1, 10000000000L, 2);
			int n = 0;
			EncodableHistogram e;
			while ((e = r.nextIntervalHistogram()) != null) {
				if (!args[2].equals(e.getTag()))
					continue;
				acc.add((Histogram) e);
				n++;
			}
			print(acc);
			System.out.println(n);
		} else if (args.length >= 1 && args[0].equals("decode")) {
			for (int a = 1; a < args.length; a++)
				print(decode(args[a]));
		} else if (args.length >= 1 && args[0].equals("counts")) {
			Histogram h = decode(args[1]);
			for (org.HdrHistogram.HistogramIterationValue v : h.recordedValues())
				System.out.println(v.getValueIteratedTo() + " " + v.getCountAtValueIteratedTo());
		} else if (args.length >= 1 && args[0].equals("encode")) {
			Histogram h = new Histogram(1, 10000000000L, 2);
			for (int a = 1; a < args.length; a++) {
				String[] vn = args[a].split(":");
				h.recordValueWithCount(Long.parseLong(vn[0]), Long.parseLong(vn[1]));
			}
			ByteBuffer buf = ByteBuffer.allocate(h.getNeededByteBufferCapacity());
			int n = h.encodeIntoCompressedByteBuffer(buf);
			byte[] out = new byte[n];
			buf.rewind();
			buf.get(out);
			System.out.println(Base64.getEncoder().encodeToString(out));
		} else {
			System.err.println("usage: HdrCheck decode B64... | counts B64 | encode V:N...");
			System.exit(2);
		}
	}
}
