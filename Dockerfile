FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1
WORKDIR /app
COPY pyproject.toml requirements.lock ./
RUN pip install --no-cache-dir -r requirements.lock
COPY . .
RUN pip install --no-cache-dir --no-deps -e . \
 && DEBUG=1 python manage.py collectstatic --noinput --verbosity 0
EXPOSE 8000
CMD ["gunicorn", "annotator.wsgi", "-c", "deploy/gunicorn.conf.py"]
