C     f77.f: fixed-form MPI through mpif.h. Environment, point-to-point
C     with every basic Fortran type, the status fields and
C     MPI_STATUS_IGNORE, collectives with MPI_IN_PLACE, a user op written
C     in Fortran, strings both ways, attributes, the MPI-1 routines
C     MPI-3.0 removed (old codes still call them), and errors returned
C     in IERROR. Prints "f77 ok" on every rank.
      PROGRAM F77
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER IERR, RANK, NP, I, STATUS(MPI_STATUS_SIZE), N, OP
      INTEGER IBUF(4), ISUM, CLS, RLEN, KEYVAL
      REAL RBUF(3)
      DOUBLE PRECISION DBUF(2), T0
      COMPLEX CBUF(2)
      DOUBLE COMPLEX ZBUF
      INTEGER*8 I8BUF
      LOGICAL LBUF(2), FLAG
      CHARACTER*8 SBUF
      CHARACTER*(MPI_MAX_OBJECT_NAME) NAME
      INTEGER(KIND=MPI_ADDRESS_KIND) TAGUB, AVAL
      INTEGER IA, IB, DT, EH, POS, BLENS(2), DISP(2), TYPES(2)
      INTEGER PBUF(8), JBUF(2)
      EXTERNAL MYSUM
      CALL MPI_INIT(IERR)
      CALL CHECK(IERR .EQ. MPI_SUCCESS, 'init')
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, RANK, IERR)
      CALL MPI_COMM_SIZE(MPI_COMM_WORLD, NP, IERR)
      CALL MPI_INITIALIZED(FLAG, IERR)
      CALL CHECK(FLAG, 'initialized')
      T0 = MPI_WTIME()
      CALL CHECK(MPI_WTICK() .GT. 0D0, 'wtick')
C     Point-to-point around a ring, one message per type.
      IF (NP .GT. 1) THEN
        IF (RANK .EQ. 0) THEN
          DO I = 1, 4
            IBUF(I) = I * 10
          END DO
          RBUF(1) = 1.5
          RBUF(2) = 2.5
          RBUF(3) = -3.5
          DBUF(1) = 1D100
          DBUF(2) = -2D-100
          CBUF(1) = (1.0, -1.0)
          CBUF(2) = (0.5, 2.0)
          LBUF(1) = .TRUE.
          LBUF(2) = .FALSE.
          SBUF = 'fortran!'
          CALL MPI_SEND(IBUF, 4, MPI_INTEGER, 1, 11, MPI_COMM_WORLD,
     &                  IERR)
          CALL MPI_SEND(RBUF, 3, MPI_REAL, 1, 12, MPI_COMM_WORLD, IERR)
          CALL MPI_SEND(DBUF, 2, MPI_DOUBLE_PRECISION, 1, 13,
     &                  MPI_COMM_WORLD, IERR)
          CALL MPI_SEND(CBUF, 2, MPI_COMPLEX, 1, 14, MPI_COMM_WORLD,
     &                  IERR)
          CALL MPI_SEND(LBUF, 2, MPI_LOGICAL, 1, 15, MPI_COMM_WORLD,
     &                  IERR)
          CALL MPI_SEND(SBUF, 8, MPI_CHARACTER, 1, 16, MPI_COMM_WORLD,
     &                  IERR)
          ZBUF = (1D200, -1D-200)
          I8BUF = -123456789012345_8
          CALL MPI_SEND(ZBUF, 1, MPI_DOUBLE_COMPLEX, 1, 17,
     &                  MPI_COMM_WORLD, IERR)
          CALL MPI_SEND(I8BUF, 1, MPI_INTEGER8, 1, 18, MPI_COMM_WORLD,
     &                  IERR)
        ELSE IF (RANK .EQ. 1) THEN
          CALL MPI_RECV(IBUF, 4, MPI_INTEGER, 0, 11, MPI_COMM_WORLD,
     &                  STATUS, IERR)
          CALL CHECK(STATUS(MPI_SOURCE) .EQ. 0, 'source')
          CALL CHECK(STATUS(MPI_TAG) .EQ. 11, 'tag')
          CALL MPI_GET_COUNT(STATUS, MPI_INTEGER, N, IERR)
          CALL CHECK(N .EQ. 4, 'count')
          CALL CHECK(IBUF(4) .EQ. 40, 'integer data')
          CALL MPI_RECV(RBUF, 3, MPI_REAL, MPI_ANY_SOURCE,
     &                  MPI_ANY_TAG, MPI_COMM_WORLD, STATUS, IERR)
          CALL CHECK(STATUS(MPI_TAG) .EQ. 12, 'any tag')
          CALL CHECK(RBUF(3) .EQ. -3.5, 'real data')
          CALL MPI_RECV(DBUF, 2, MPI_DOUBLE_PRECISION, 0, 13,
     &                  MPI_COMM_WORLD, MPI_STATUS_IGNORE, IERR)
          CALL CHECK(DBUF(1) .EQ. 1D100 .AND. DBUF(2) .EQ. -2D-100,
     &               'double data')
          CALL MPI_RECV(CBUF, 2, MPI_COMPLEX, 0, 14, MPI_COMM_WORLD,
     &                  MPI_STATUS_IGNORE, IERR)
          CALL CHECK(CBUF(2) .EQ. (0.5, 2.0), 'complex data')
          CALL MPI_RECV(LBUF, 2, MPI_LOGICAL, 0, 15, MPI_COMM_WORLD,
     &                  MPI_STATUS_IGNORE, IERR)
          CALL CHECK(LBUF(1) .AND. .NOT. LBUF(2), 'logical data')
          CALL MPI_RECV(SBUF, 8, MPI_CHARACTER, 0, 16, MPI_COMM_WORLD,
     &                  MPI_STATUS_IGNORE, IERR)
          CALL CHECK(SBUF .EQ. 'fortran!', 'character data')
          CALL MPI_RECV(ZBUF, 1, MPI_DOUBLE_COMPLEX, 0, 17,
     &                  MPI_COMM_WORLD, MPI_STATUS_IGNORE, IERR)
          CALL CHECK(ZBUF .EQ. (1D200, -1D-200), 'double complex')
          CALL MPI_RECV(I8BUF, 1, MPI_INTEGER8, 0, 18, MPI_COMM_WORLD,
     &                  MPI_STATUS_IGNORE, IERR)
          CALL CHECK(I8BUF .EQ. -123456789012345_8, 'integer*8')
        END IF
      END IF
C     Collectives: an in-place sum, a broadcast, a user op.
      ISUM = RANK + 1
      CALL MPI_ALLREDUCE(MPI_IN_PLACE, ISUM, 1, MPI_INTEGER, MPI_SUM,
     &                   MPI_COMM_WORLD, IERR)
      CALL CHECK(ISUM .EQ. NP * (NP + 1) / 2, 'allreduce in place')
      N = 0
      IF (RANK .EQ. 0) N = 77
      CALL MPI_BCAST(N, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, IERR)
      CALL CHECK(N .EQ. 77, 'bcast')
      CALL MPI_OP_CREATE(MYSUM, .TRUE., OP, IERR)
      IBUF(1) = RANK
      IBUF(2) = 1
      CALL MPI_ALLREDUCE(IBUF, IBUF(3), 2, MPI_INTEGER, OP,
     &                   MPI_COMM_WORLD, IERR)
      CALL CHECK(IBUF(3) .EQ. NP * (NP - 1) / 2, 'user op sum')
      CALL CHECK(IBUF(4) .EQ. NP, 'user op count')
      CALL MPI_OP_FREE(OP, IERR)
C     MAXLOC over MPI_2INTEGER: the largest value and its rank.
      IBUF(1) = MOD(RANK * 7, NP + 1)
      IBUF(2) = RANK
      CALL MPI_ALLREDUCE(IBUF, IBUF(3), 1, MPI_2INTEGER, MPI_MAXLOC,
     &                   MPI_COMM_WORLD, IERR)
      N = -1
      DO I = 0, NP - 1
        IF (MOD(I * 7, NP + 1) .GT. N) THEN
          N = MOD(I * 7, NP + 1)
          ISUM = I
        END IF
      END DO
      CALL CHECK(IBUF(3) .EQ. N .AND. IBUF(4) .EQ. ISUM, 'maxloc')
      CALL CHECK(OP .EQ. MPI_OP_NULL, 'op freed')
C     Strings: a name set with trailing blanks, read back blank-padded.
      CALL MPI_COMM_SET_NAME(MPI_COMM_WORLD, 'world   ', IERR)
      CALL MPI_COMM_GET_NAME(MPI_COMM_WORLD, NAME, RLEN, IERR)
      CALL CHECK(RLEN .EQ. 5 .AND. NAME .EQ. 'world', 'comm name')
C     Attributes: MPI_TAG_UB as a value; a user keyval.
      CALL MPI_COMM_GET_ATTR(MPI_COMM_WORLD, MPI_TAG_UB, TAGUB, FLAG,
     &                       IERR)
      CALL CHECK(FLAG .AND. TAGUB .GE. 32767, 'tag_ub')
      CALL MPI_COMM_CREATE_KEYVAL(MPI_COMM_NULL_COPY_FN,
     &     MPI_COMM_NULL_DELETE_FN, KEYVAL, 0_MPI_ADDRESS_KIND, IERR)
      CALL CHECK(IERR .EQ. MPI_SUCCESS, 'create keyval')
      CALL MPI_COMM_SET_ATTR(MPI_COMM_WORLD, KEYVAL,
     &                       123456789012_MPI_ADDRESS_KIND, IERR)
      CALL MPI_COMM_GET_ATTR(MPI_COMM_WORLD, KEYVAL, AVAL, FLAG, IERR)
      CALL CHECK(FLAG .AND. AVAL .EQ. 123456789012_MPI_ADDRESS_KIND,
     &           'user attribute')
      CALL MPI_COMM_DELETE_ATTR(MPI_COMM_WORLD, KEYVAL, IERR)
      CALL MPI_COMM_FREE_KEYVAL(KEYVAL, IERR)
C     The removed MPI-1 routines: a struct of IBUF(1) and IBUF(3) by
C     MPI_ADDRESS differences, its extent and bounds, packed; the same
C     reversed by MPI_TYPE_HINDEXED; every third INTEGER by
C     MPI_TYPE_HVECTOR; MPI_ERRHANDLER_SET/GET.
      IBUF(1) = 1
      IBUF(2) = 2
      IBUF(3) = 3
      IBUF(4) = 4
      CALL MPI_ADDRESS(IBUF(1), IA, IERR)
      CALL MPI_ADDRESS(IBUF(3), IB, IERR)
      CALL CHECK(IB - IA .EQ. 8, 'mpi_address difference')
      BLENS(1) = 1
      BLENS(2) = 1
      DISP(1) = 0
      DISP(2) = IB - IA
      TYPES(1) = MPI_INTEGER
      TYPES(2) = MPI_INTEGER
      CALL MPI_TYPE_STRUCT(2, BLENS, DISP, TYPES, DT, IERR)
      CALL CHECK(IERR .EQ. MPI_SUCCESS, 'mpi_type_struct')
      CALL MPI_TYPE_COMMIT(DT, IERR)
      CALL MPI_TYPE_EXTENT(DT, N, IERR)
      CALL CHECK(IERR .EQ. MPI_SUCCESS .AND. N .EQ. 12, 'type_extent')
      CALL MPI_TYPE_LB(DT, N, IERR)
      CALL CHECK(N .EQ. 0, 'type_lb')
      CALL MPI_TYPE_UB(DT, N, IERR)
      CALL CHECK(N .EQ. 12, 'type_ub')
      POS = 0
      CALL MPI_PACK(IBUF, 1, DT, PBUF, 32, POS, MPI_COMM_WORLD, IERR)
      CALL MPI_TYPE_FREE(DT, IERR)
      CALL CHECK(POS .EQ. 8 .AND. PBUF(1) .EQ. 1 .AND. PBUF(2) .EQ. 3,
     &           'struct packed')
      DISP(1) = 8
      DISP(2) = 0
      CALL MPI_TYPE_HINDEXED(2, BLENS, DISP, MPI_INTEGER, DT, IERR)
      CALL MPI_TYPE_COMMIT(DT, IERR)
      POS = 0
      CALL MPI_PACK(IBUF, 1, DT, PBUF, 32, POS, MPI_COMM_WORLD, IERR)
      CALL MPI_TYPE_FREE(DT, IERR)
      CALL CHECK(PBUF(1) .EQ. 3 .AND. PBUF(2) .EQ. 1, 'hindexed')
      CALL MPI_TYPE_HVECTOR(2, 1, 12, MPI_INTEGER, DT, IERR)
      CALL MPI_TYPE_COMMIT(DT, IERR)
      POS = 0
      CALL MPI_PACK(IBUF, 1, DT, PBUF, 32, POS, MPI_COMM_WORLD, IERR)
      POS = 0
      CALL MPI_UNPACK(PBUF, 32, POS, JBUF, 2, MPI_INTEGER,
     &                MPI_COMM_WORLD, IERR)
      CALL MPI_TYPE_FREE(DT, IERR)
      CALL CHECK(JBUF(1) .EQ. 1 .AND. JBUF(2) .EQ. 4, 'hvector')
      CALL MPI_ERRHANDLER_SET(MPI_COMM_WORLD, MPI_ERRORS_RETURN, IERR)
      CALL MPI_ERRHANDLER_GET(MPI_COMM_WORLD, EH, IERR)
      CALL CHECK(EH .EQ. MPI_ERRORS_RETURN, 'errhandler_get')
      CALL MPI_ERRHANDLER_FREE(EH, IERR)
C     Errors come back in IERROR under MPI_ERRORS_RETURN.
      CALL MPI_COMM_SET_ERRHANDLER(MPI_COMM_WORLD, MPI_ERRORS_RETURN,
     &                             IERR)
      CALL MPI_SEND(IBUF, 1, MPI_INTEGER, NP + 5, 0, MPI_COMM_WORLD,
     &              IERR)
      CALL MPI_ERROR_CLASS(IERR, CLS, I)
      CALL CHECK(CLS .EQ. MPI_ERR_RANK, 'error class')
      CALL MPI_ERROR_STRING(IERR, NAME, RLEN, I)
      CALL CHECK(RLEN .GT. 0 .AND. NAME(RLEN+1:) .EQ. ' ',
     &           'error string')
      CALL MPI_BARRIER(MPI_COMM_WORLD, IERR)
      CALL CHECK(MPI_WTIME() .GE. T0, 'wtime')
      PRINT '(A)', 'f77 ok'
      CALL MPI_FINALIZE(IERR)
      END

      SUBROUTINE MYSUM(INVEC, INOUTVEC, LEN, DATATYPE)
      INTEGER LEN, DATATYPE, I
      INTEGER INVEC(LEN), INOUTVEC(LEN)
      INCLUDE 'mpif.h'
      IF (DATATYPE .NE. MPI_INTEGER) STOP 'user op datatype'
      DO I = 1, LEN
        INOUTVEC(I) = INOUTVEC(I) + INVEC(I)
      END DO
      END

      SUBROUTINE CHECK(OK, WHAT)
      LOGICAL OK
      CHARACTER*(*) WHAT
      INCLUDE 'mpif.h'
      INTEGER IERR
      IF (.NOT. OK) THEN
        PRINT '(2A)', 'FAILED: ', WHAT
        FLUSH(6)
        CALL MPI_ABORT(MPI_COMM_WORLD, 1, IERR)
      END IF
      END
